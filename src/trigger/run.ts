/**
 * One trigger: builds the deliveries of an event or a sequence from the
 * catalog, applies the overrides, signs each through its provider, adds
 * the faults asked for (duplicate, out of order, stale, bad signature,
 * retries), sends them in order and reports what each got. Used by the
 * `trigger` command and by the test library. Effects (clock, sleep, send)
 * are injected.
 * @module
 */
import { UsageError } from "../errors.ts";
import { sendRaw } from "../send/client.ts";
import { CATALOG } from "../provider/catalog.ts";
import type { GenericHmacSettings } from "../provider/types.ts";
import type { TriggerKeys } from "./keys.ts";
import { applyHeaderOverrides, applySets, setJsonField } from "../send/overrides.ts";
import { retryWaits, shuffled } from "./plan.ts";
import { loadCatalog, resolveEvent } from "./registry.ts";
import { signDelivery, signingMode } from "./sign.ts";
import type { BuildContext, DraftBody } from "./types.ts";

/** The delivery faults a trigger can make. */
export interface Faults {
  /** Send each delivery twice, identical (same ids, same signature). */
  duplicate?: boolean;
  /** Send a sequence's events shuffled. */
  outOfOrder?: boolean;
  /** Seed of the shuffle. @default a random one (reported) */
  seed?: number;
  /** Sign with a timestamp older than the provider's tolerance. */
  stale?: boolean;
  /** Sign with the wrong secret or key. */
  badSignature?: boolean;
  /** Send each delivery again this many times, at the provider's retry schedule. */
  retries?: number;
  /** Wait the real schedule (hours) instead of seconds. */
  realTime?: boolean;
}

/** What to trigger and how. */
export interface TriggerRequest {
  provider: string;
  /** An event or a sequence of the provider's catalog. */
  event: string;
  /** Where to send it. */
  to: string;
  /** The URL to sign for (Twilio), when it differs from `to`. @default to */
  signatureUrl?: string;
  secret?: string;
  hmac?: GenericHmacSettings;
  keys?: TriggerKeys;
  /** Largest age of a signed timestamp the receiver accepts (for `stale`). @default 300 */
  tolerance?: number;
  /** `path=value` changes (`--set`), to every event of a sequence; the field must exist unless `setNew`. */
  set?: readonly string[];
  /** `--set-new`: a `set` path the body does not have is created instead of refused. @default false */
  setNew?: boolean;
  /** A body to send instead of the catalog's (signed). */
  body?: Uint8Array;
  /** `-H` overrides, as replay applies them: replace every header of the name in the place of the first, add, or (empty value) remove. */
  headers?: readonly [string, string][];
  fault?: Faults;
}

/** Effects, with real defaults. */
export interface TriggerEffects {
  now?: () => Date;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  send?: typeof sendRaw;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Told of each delivery just before it is sent (dev's side channel). */
  beforeSend?: (delivery: PlannedDelivery & { body: Uint8Array }) => Promise<void> | void;
  /** Told of each delivery as soon as its answer is in. */
  onDelivery?: (delivery: Delivery) => void | Promise<void>;
}

/** A delivery about to be sent. */
export interface PlannedDelivery {
  event: string;
  /** What is wrong with it on purpose. */
  fault?: "duplicate" | "stale" | "bad-signature" | "retry" | "out-of-order";
  /** Attempt number: 0 the first, then retries. */
  attempt: number;
  /** A header and its value that single the delivery out (its id or its signature). */
  match?: [string, string];
}

/** One delivery sent, and the answer. */
export interface Delivery extends PlannedDelivery {
  provider: string;
  method: string;
  url: string;
  headers: [string, string][];
  body: Uint8Array;
  /** How it was signed: with the secret, hooktap's key, or not. */
  signed: "secret" | "key" | "none";
  /** Whether the target is meant to refuse it (stale, bad signature). */
  expectRejection: boolean;
  status?: number;
  responseHeaders?: [string, string][];
  responseBody?: Uint8Array;
  error?: string;
  durationMs: number;
  /** Answered 2xx, or refused when it was meant to be. */
  ok: boolean;
  /** Through `dev`: its verdict, when it judged a fault meant to be refused (`expired`, `invalid`). */
  devVerdict?: string;
}

/** What a whole trigger did. */
export interface TriggerOutcome {
  provider: string;
  sequence?: string;
  seed?: number;
  deliveries: Delivery[];
  /** Why the deliveries are unsigned, when they are. */
  unsignedReason?: string;
  retriesNote?: string;
}

/** One delivery built, before signing. */
interface Built {
  step: { event: string };
  method: string;
  headers: [string, string][];
  bytes: Uint8Array;
  deliveryHeader: string | undefined;
}

const TOLERANCE_FLOOR: Record<string, number> = { twitch: 600 };

function _sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

function _header(headers: readonly [string, string][], name: string): string | undefined {
  return headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

/** A sequence step's own changes (catalog values, fields created when missing) on the draft's body. */
function _stepSets(body: DraftBody, set: Readonly<Record<string, unknown>>): DraftBody {
  if (body.kind === "json") {
    const value = structuredClone(body.value);
    for (const [path, v] of Object.entries(set)) setJsonField(value, path, v, true);
    return { ...body, value };
  }
  if (body.kind === "form") {
    const form = new URLSearchParams(body.value);
    for (const [path, v] of Object.entries(set)) form.set(path, String(v));
    return { kind: "form", value: [...form] };
  }
  return body;
}

/** A draft's body as bytes: JSON in the provider's indentation, a form URL-encoded, raw bytes as they are. */
function _encode(body: DraftBody): Uint8Array {
  if (body.kind === "raw") return body.bytes;
  if (body.kind === "form") return new TextEncoder().encode(new URLSearchParams(body.value).toString());
  return new TextEncoder().encode(JSON.stringify(body.value, null, body.indent || undefined));
}

/**
 * Triggers `request.event` of `request.provider` at `request.to`.
 * @throws {UsageError} for an unknown provider or event, a bad override, or a fault that cannot apply.
 */
export async function trigger(
  request: TriggerRequest,
  effects: TriggerEffects = {},
): Promise<TriggerOutcome> {
  const now = effects.now ?? (() => new Date());
  const sleep = effects.sleep ?? _sleep;
  const send = effects.send ?? sendRaw;
  const fault = request.fault ?? {};
  const catalog = await loadCatalog(request.provider);
  const provider = catalog.provider;
  const title = CATALOG[provider]?.title ?? provider;
  const resolved = resolveEvent(catalog, request.event);
  const url = new URL(request.to);
  const material = {
    ...(request.secret !== undefined ? { secret: request.secret } : {}),
    ...(request.hmac !== undefined ? { hmac: request.hmac } : {}),
    ...(request.keys !== undefined ? { keys: request.keys } : {}),
  };
  const mode = signingMode(provider, material);
  const sets = request.set ?? [];
  if (fault.stale && !(CATALOG[provider]?.timestamped ?? false)) {
    throw new UsageError(
      `${title} signs no timestamp, so --stale has nothing to make stale (use it with Stripe, Slack, ` +
        "Standard Webhooks, Zoom, Paddle or Twitch).",
    );
  }
  if ((fault.stale || fault.badSignature) && mode === "none") {
    throw new UsageError(
      `--${
        fault.stale ? "stale" : "bad-signature"
      } needs a signed delivery: give --secret or set the endpoint's \`secret\`.`,
    );
  }
  if (fault.outOfOrder && resolved.steps.length < 2) {
    throw new UsageError(
      `--out-of-order shuffles a sequence, and ${request.event} is one event: name a sequence ` +
        `(hooktap trigger --list ${provider} shows them).`,
    );
  }
  const retries = fault.retries ?? 0;
  if (!Number.isInteger(retries) || retries < 0 || retries > 20) {
    throw new UsageError(`--retries must be a whole number from 0 to 20, got ${retries}.`);
  }
  const seed = fault.outOfOrder ? fault.seed ?? Math.floor(Math.random() * 2 ** 31) : undefined;
  const steps = seed === undefined ? resolved.steps : shuffled(resolved.steps, seed);
  const ids = new Map<string, string>();
  const start = now();
  const ctx: BuildContext = {
    now: start,
    id: (name, make) => {
      let v = ids.get(name);
      if (v === undefined) ids.set(name, v = make());
      return v;
    },
    ...(request.secret !== undefined ? { secret: request.secret } : {}),
  };
  const tolerance = Math.max(request.tolerance ?? 300, TOLERANCE_FLOOR[provider] ?? 0);
  const wrong = fault.badSignature
    ? {
      ...material,
      ...(material.secret !== undefined ? { secret: `${material.secret}-not-the-secret` } : {}),
      ...(mode === "key" ? { keys: await (await import("./keys.ts")).makeTriggerKeys() } : {}),
    }
    : material;
  const signUrl = request.signatureUrl ?? url.href;

  // Build every delivery first (so a bad --set fails before anything is sent).
  const drafts: Built[] = [];
  for (const step of steps) {
    const draft = await catalog.build(step.event, { ...ctx, now: start });
    const body = step.set === undefined ? draft.body : _stepSets(draft.body, step.set);
    // The user's --set: replay's meaning, on the bytes the provider would send (JSON or form).
    const bytes = request.body !== undefined ? request.body : sets.length === 0 ? _encode(body) : applySets(
      _encode(body),
      body.kind === "form" ? "application/x-www-form-urlencoded" : _header(draft.headers, "content-type"),
      sets,
      request.setNew ?? false,
    );
    drafts.push({
      step,
      method: draft.method ?? "POST",
      headers: applyHeaderOverrides(draft.headers, request.headers),
      bytes,
      deliveryHeader: draft.deliveryHeader,
    });
  }

  const signAt = async (d: Built, at: Date, extra: [string, string][] = []) =>
    await signDelivery(
      provider,
      { method: d.method, url: signUrl, headers: applyHeaderOverrides(d.headers, extra), body: d.bytes },
      wrong,
      fault.stale ? new Date(at.getTime() - (tolerance + 60) * 1000) : at,
      tolerance,
    );

  const plan: (PlannedDelivery & { headers: [string, string][]; draft: Built; wait: number })[] = [];
  const waits = retryWaits(catalog.retries, retries, fault.realTime ?? false);
  const base: PlannedDelivery["fault"] = fault.stale
    ? "stale"
    : fault.badSignature
    ? "bad-signature"
    : fault.outOfOrder
    ? "out-of-order"
    : undefined;
  for (const d of drafts) {
    const signed = await signAt(d, start);
    const match = _match(signed.headers, d.deliveryHeader);
    plan.push({
      event: d.step.event,
      attempt: 0,
      headers: signed.headers,
      draft: d,
      wait: 0,
      ...(base ? { fault: base } : {}),
      ...(match ? { match } : {}),
    });
    if (fault.duplicate) {
      plan.push({
        event: d.step.event,
        attempt: 0,
        headers: signed.headers,
        draft: d,
        wait: 0,
        fault: "duplicate",
        ...(match ? { match } : {}),
      });
    }
    for (let i = 1; i <= retries; i++) {
      plan.push({
        event: d.step.event,
        attempt: i,
        headers: [],
        draft: d,
        wait: waits[i - 1]!,
        fault: "retry",
      });
    }
  }

  const deliveries: Delivery[] = [];
  for (const p of plan) {
    if (effects.signal?.aborted) break;
    if (p.wait > 0) await sleep(p.wait, effects.signal);
    let headers = p.headers;
    if (p.attempt > 0) {
      headers = (await signAt(p.draft, now(), catalog.retryHeaders?.(p.attempt) ?? [])).headers;
    }
    if (_header(headers, "content-length") === undefined) {
      headers = [...headers, ["Content-Length", String(p.draft.bytes.length)]];
    }
    const match = p.match ?? _match(headers, p.draft.deliveryHeader);
    const expectRejection = fault.stale === true || fault.badSignature === true;
    await effects.beforeSend?.({
      event: p.event,
      attempt: p.attempt,
      body: p.draft.bytes,
      ...(p.fault ? { fault: p.fault } : {}),
      ...(match ? { match } : {}),
    });
    const began = performance.now();
    const delivery: Delivery = {
      provider,
      event: p.event,
      attempt: p.attempt,
      ...(p.fault ? { fault: p.fault } : {}),
      ...(match ? { match } : {}),
      method: p.draft.method,
      url: url.href,
      headers,
      body: p.draft.bytes,
      signed: mode,
      expectRejection,
      durationMs: 0,
      ok: false,
    };
    try {
      const answer = await send(url, { method: p.draft.method, headers, body: p.draft.bytes }, {
        timeoutMs: effects.timeoutMs ?? 30_000,
        ...(effects.signal ? { signal: effects.signal } : {}),
        maxBody: 16 * 1024,
        keepAlive: false,
      });
      delivery.status = answer.status;
      delivery.responseHeaders = [...answer.headers] as [string, string][];
      delivery.responseBody = answer.body;
      const accepted = answer.status >= 200 && answer.status < 300;
      delivery.ok = expectRejection ? !accepted : accepted;
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
    delivery.durationMs = Math.round(performance.now() - began);
    deliveries.push(delivery);
    await effects.onDelivery?.(delivery);
  }
  const outcome: TriggerOutcome = { provider, deliveries };
  if (resolved.sequence !== undefined) outcome.sequence = resolved.sequence;
  if (seed !== undefined) outcome.seed = seed;
  if (retries > 0) outcome.retriesNote = catalog.retriesNote;
  if (mode === "none" && provider !== "msgraph") outcome.unsignedReason = _unsignedReason(provider, title);
  return outcome;
}

function _match(
  headers: readonly [string, string][],
  deliveryHeader: string | undefined,
): [string, string] | undefined {
  if (deliveryHeader !== undefined) {
    const v = _header(headers, deliveryHeader);
    if (v !== undefined) return [deliveryHeader, v];
  }
  return undefined;
}

function _unsignedReason(provider: string, title: string): string {
  if (provider === "hmac") {
    return "the generic HMAC scheme is described by an endpoint's `hmac` config: add `hmac` and `secret` " +
      "to the endpoint (or give --secret with an endpoint that has `hmac`)";
  }
  return `no secret for ${title}: give --secret, or set \`secret\` on the endpoint in hooktap.config.ts`;
}
