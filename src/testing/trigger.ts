/**
 * `trigger` for tests: a provider's event from hooktap's catalog, signed as
 * the provider signs it (with the test's secret, or a key pair made for the
 * test), sent to the app under test or a `startReceiver`, with the faults
 * real senders make. Returns what was sent and the app's answer.
 * @module
 */
import { UsageError } from "../errors.ts";
import { canonicalProvider } from "../providers/catalog.ts";
import { KEYED_PROVIDERS } from "../providers/signing.ts";
import { makeTriggerKeys, publicKeyFor, type TriggerKeys } from "../trigger/keys.ts";
import { type Delivery, type Faults, trigger as run } from "../trigger/run.ts";

/** Options of {@linkcode trigger}. */
export interface TriggerOptions {
  /** Where to send: a URL, or a receiver from `startReceiver` (its first endpoint's URL). */
  to: string | { urlOf(name: string): string; urls: Readonly<Record<string, string>> };
  /** The signing secret (Stripe's `whsec_...`, GitHub's secret, Twilio's auth token, ...). @default unsigned */
  secret?: string;
  /**
   * Key pairs for Discord, SendGrid and Standard Webhooks v1a.
   * @default a pair made for this call when the provider signs with one and no secret is given
   */
  keys?: TriggerKeys;
  /**
   * Fields to change, as `--set` changes them: `{ "data.object.amount": 5000 }` (JSON paths; a form
   * body's field names). A field the example does not have is an error unless `setNew`. In a form
   * body a string that reads as JSON (`"5000"`) keeps its quotes: give form values as numbers. @default {}
   */
  set?: Readonly<Record<string, unknown>>;
  /** `--set-new`: create the `set` fields the example does not have. @default false */
  setNew?: boolean;
  /** Headers to add or replace, as `-H` does (every header of the name, in the place of the first); an empty value removes. @default [] */
  headers?: readonly [string, string][];
  /** The faults to make: `{ duplicate: true }`, `{ stale: true }`, `{ retries: 2 }`, ... @default none */
  fault?: Faults;
  /** The URL Twilio's signature covers. @default the URL it is sent to */
  signatureUrl?: string;
  /** Longest wait for each answer, ms. @default 10000 */
  timeoutMs?: number;
}

/** One request sent, and the app's answer. */
export interface TriggeredDelivery {
  /** The event type sent. */
  event: string;
  /** The fault this request carried, when one was asked. */
  fault?: string;
  /** Attempt number, from 1. */
  attempt: number;
  /** What was sent. */
  request: { method: string; url: string; headers: [string, string][]; body: string };
  /** The app's answer, when it answered. */
  response?: { status: number; headers: [string, string][]; body: string };
  /** Why there was no answer. */
  error?: string;
  /** 2xx, or refused when the fault meant it to be. */
  ok: boolean;
}

/** What {@linkcode trigger} did. */
export interface TriggerResult {
  /** The first delivery's request (the one event, or a sequence's first). */
  request: TriggeredDelivery["request"];
  /** The first delivery's answer. */
  response?: TriggeredDelivery["response"];
  /** Every delivery, in the order sent (sequences, duplicates, retries). */
  deliveries: TriggeredDelivery[];
  /** The public key the app must trust, for key-pair schemes. */
  publicKey?: string;
}

const decoder = new TextDecoder();

/**
 * A value as `--set` reads it back: a string that is not JSON as itself (so a form field gets
 * no quotes), anything else as JSON.
 */
function _typed(value: unknown): string {
  if (typeof value !== "string") return JSON.stringify(value);
  try {
    JSON.parse(value);
  } catch {
    return value;
  }
  return JSON.stringify(value);
}

function _view(d: Delivery): TriggeredDelivery {
  return {
    event: d.event,
    ...(d.fault ? { fault: d.fault } : {}),
    attempt: d.attempt,
    request: { method: d.method, url: d.url, headers: d.headers, body: decoder.decode(d.body) },
    ...(d.status === undefined ? {} : {
      response: {
        status: d.status,
        headers: d.responseHeaders ?? [],
        body: decoder.decode(d.responseBody ?? new Uint8Array()),
      },
    }),
    ...(d.error ? { error: d.error } : {}),
    ok: d.ok,
  };
}

const OPTION_NAMES: readonly [RegExp, string][] = [
  [/--set-new\b/g, "`setNew: true`"],
  [/--set\b/g, "`set`"],
  [/--secret\b/g, "`secret`"],
  [/--to\b/g, "`to`"],
  [/--signature-url\b/g, "`signatureUrl`"],
  [/--stale\b/g, "`fault: { stale: true }`"],
  [/--bad-signature\b/g, "`fault: { badSignature: true }`"],
  [/--out-of-order\b/g, "`fault: { outOfOrder: true }`"],
  [/--retries\b/g, "`fault: { retries }`"],
];

/** The CLI's refusal, in the library's words: its options, not the command's flags. */
function _libraryWording(error: unknown): never {
  if (!(error instanceof UsageError)) throw error;
  let message = error.message;
  for (const [flag, option] of OPTION_NAMES) message = message.replace(flag, option);
  throw new UsageError(`trigger: ${message}`);
}

/** `options.to` as a URL string, or a refusal naming the fix. */
function _target(to: TriggerOptions["to"]): string {
  if (typeof to !== "string") {
    return to.urls[Object.keys(to.urls)[0] ?? ""] ?? to.urlOf("default");
  }
  if (URL.canParse(to) && /^https?:$/.test(new URL(to).protocol)) return to;
  const fix = /^[\w.-]+:\d+(\/|$)/.test(to) ? `: did you mean http://${to} ?` : "";
  throw new UsageError(
    "trigger's `to` must be a full http(s) URL like http://localhost:3000/webhook, or a receiver from " +
      `startReceiver, got ${JSON.stringify(to)}${fix}`,
  );
}

/**
 * Sends `event` (or a sequence) of `provider` from hooktap's catalog, signed, to `options.to`.
 * @throws {UsageError} for an unknown provider or event, a `set` path not in the example, a `to` that is not
 * an http(s) URL, or an empty `secret`.
 *
 * @example
 * ```ts
 * import { startReceiver } from "./receiver.ts";
 * import { trigger } from "./trigger.ts";
 * await using receiver = await startReceiver({
 *   endpoints: [{ name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: "whsec_test" }],
 * });
 * const { response } = await trigger("stripe", "invoice.paid", { to: receiver, secret: "whsec_test" });
 * console.log(response?.status); // 200
 * console.log((await receiver.waitFor({ type: "invoice.paid" })).verdict?.status); // "valid"
 * ```
 */
export async function trigger(
  provider: string,
  event: string,
  options: TriggerOptions,
): Promise<TriggerResult> {
  const to = _target(options.to);
  if (options.secret === "") {
    throw new UsageError(
      "trigger's `secret` is empty (an unset environment variable?): pass the secret the app verifies " +
        "with, or leave `secret` out to send the event unsigned.",
    );
  }
  const keyed = KEYED_PROVIDERS.has(canonicalProvider(provider) ?? provider);
  const keys = options.keys ?? (keyed && options.secret === undefined ? await makeTriggerKeys() : undefined);
  const outcome = await run({
    provider,
    event,
    to,
    ...(options.secret !== undefined ? { secret: options.secret } : {}),
    ...(keys !== undefined ? { keys } : {}),
    set: Object.entries(options.set ?? {}).map(([k, v]) => `${k}=${_typed(v)}`),
    ...(options.setNew ? { setNew: true } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.fault ? { fault: options.fault } : {}),
    ...(options.signatureUrl ? { signatureUrl: options.signatureUrl } : {}),
  }, { timeoutMs: options.timeoutMs ?? 10_000 }).catch(_libraryWording);
  const deliveries = outcome.deliveries.map(_view);
  const first = deliveries[0]!;
  const publicKey = keys === undefined ? undefined : publicKeyFor(outcome.provider, keys);
  return {
    request: first.request,
    ...(first.response ? { response: first.response } : {}),
    deliveries,
    ...(publicKey ? { publicKey } : {}),
  };
}
