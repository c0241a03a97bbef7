/**
 * One trigger: builds the deliveries of an event or a sequence from the
 * catalog, applies the overrides, signs each through its provider, adds
 * the faults asked for (duplicate, out of order, stale, bad signature,
 * retries), sends them in order and reports what each got. Used by the
 * `trigger` command and by the test library. Effects (clock, sleep, send)
 * are injected.
 * @module
 */
import { lazyImport } from "../cli/lazy.ts";
import { UsageError } from "../errors.ts";
import { sendRaw } from "../send/client.ts";
import { CATALOG } from "../providers/catalog.ts";
import type { GenericHmacSettings } from "../providers/types.ts";
import type { TriggerKeys } from "./keys.ts";
import {
  applyHeaderOverrides,
  applySets,
  applyUnsets,
  setJsonField,
  splitStep,
  stepMatches,
  unsetJsonField,
} from "../send/overrides.ts";
import { retryWaits, shuffled, SIGNED_TIMESTAMP, staleTime, timestampedProviders } from "./plan.ts";
import { loadCatalog, resolveEvent } from "./registry.ts";
import { signDelivery, type Signed, type SigningMaterial, signingMode } from "./sign.ts";
import type { BuildContext, DraftBody, SequenceStep, TriggerCatalog } from "../providers/catalog_types.ts";
import { closest } from "../text/suggest.ts";
import { suggestCommand } from "../text/command_line.ts";

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
  /**
   * `path=value` changes (`--set`), to every event of a sequence, or `STEP:path=value` to one step (its
   * number from 1 or its event type); the field must exist unless `setNew`.
   */
  set?: readonly string[];
  /** `--unset [STEP:]path`: fields to remove, from every step or one; the field must exist. */
  unset?: readonly string[];
  /** `--fixture`: the steps to send instead of `event`'s (each an event of the catalog and its changes). */
  steps?: readonly TriggerStep[];
  /** `--api-version`: the API version to shape payloads for (providers whose catalog has `apiVersions`). */
  apiVersion?: string;
  /** The endpoint's `verifyToken`: Meta's verification request (`subscribe`) carries it. */
  verifyToken?: string;
  /** `--set-new`: a `set` path the body does not have is created instead of refused. @default false */
  setNew?: boolean;
  /** A body to send instead of the catalog's (signed). */
  body?: Uint8Array;
  /** `-H` overrides, as replay applies them: replace every header of the name in the place of the first, add, or (empty value) remove. */
  headers?: readonly [string, string][];
  fault?: Faults;
}

/** One step of a `--fixture`: an event of the catalog, changes to it, or a whole body of one's own. */
export interface TriggerStep extends SequenceStep {
  /** Fields to remove, after `set`. */
  unset?: readonly string[];
  /** A JSON body to send instead of the catalog's (the event's headers and signature still apply). */
  body?: unknown;
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
  /** Through `dev`: its verdict when not `valid` (a fault meant to be refused, or a delivery dev found not valid). */
  devVerdict?: string;
  /** Why a 2xx answer to a URL handshake (Slack, Discord, Zoom, Twitch) fails it; then not `ok`. */
  answerProblem?: string;
  /**
   * Why `hooktap dev`'s own answer (queue mode, or no forward) would fail the sender where the app's is what
   * counts (a Discord interaction's, a Slack slash command's): `ok` stays (delivered and captured), marked `!`.
   */
  answerNote?: string;
  /** Signature headers `-H` removed or set after signing (`Stripe-Signature`): what the app got instead. */
  signatureHeaders?: { name: string; value: string }[];
  /** The URL the signature covers, for a provider that signs it (Twilio): `--signature-url`, or `url`. */
  signedUrl?: string;
}

/** The verdicts dev's own answer may carry (src/event/record.ts's VerdictStatus). */
const DEV_VERDICTS = new Set(["valid", "invalid", "expired", "unsigned", "no-secret"]);

/** dev's verdicts that refuse a signature (a fault meant to be refused is, when dev gives one). */
const REFUSALS = new Set(["invalid", "expired"]);

/**
 * What `hooktap dev`'s own answer to a delivery says: the id it stored the event under, and the verdict it
 * tells `hooktap trigger` (src/receiver/handler.ts). A relayed answer is the app's (dev adds only the
 * `x-hooktap-event-id` header), whose JSON may well have an `id` and a `verdict` of its own: the verdict is
 * read only when the body's id is that header's.
 */
export function devAnswer(
  d: Pick<Delivery, "responseBody" | "responseHeaders">,
): { id?: string; verdict?: string } {
  if (d.responseBody === undefined) return {};
  let json: { id?: unknown; verdict?: unknown };
  try {
    json = JSON.parse(new TextDecoder().decode(d.responseBody));
  } catch {
    return {};
  }
  const id = typeof json?.id === "string" && /^evt_\w+$/.test(json.id) ? json.id : undefined;
  if (id === undefined) return {};
  const own = d.responseHeaders?.find(([k]) => k.toLowerCase() === "x-hooktap-event-id")?.[1] === id;
  return own && typeof json.verdict === "string" && DEV_VERDICTS.has(json.verdict)
    ? { id, verdict: json.verdict }
    : { id };
}

/**
 * A delivery into dev judged by dev's verdict `status`: a fault is refused as meant only when dev judged the
 * signature (invalid, expired): `no-secret` or `unsigned` means dev could not judge it, and the fault proves
 * nothing. A delivery meant to pass that dev found not valid (a secret that is not the endpoint's) says so;
 * one trigger sent unsigned that dev found unsigned has nothing to add.
 */
export function judgeByDev(d: Delivery, status: string): void {
  if (status === "valid") return;
  // Sent unsigned by trigger itself (no secret, or a request the provider signs not): dev's `unsigned` would
  // only repeat what the delivery's line and the warning already say.
  if (status === "unsigned" && d.signed === "none" && !d.expectRejection) return;
  if (d.expectRejection) d.ok = REFUSALS.has(status);
  d.devVerdict = status;
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
  /** The draft's query string (added to the URL), and that the provider sends it unsigned. */
  query?: string;
  unsigned?: true;
}

const TOLERANCE_FLOOR: Record<string, number> = { twitch: 600 };

/** Providers with a URL handshake whose answer is judged (src/trigger/handshake.ts, loaded only for them). */
const HANDSHAKES: ReadonlySet<string> = new Set(["slack", "discord", "zoom", "twitch", "meta"]);

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

/** A fixture step's removals on the draft's body. */
function _stepUnsets(body: DraftBody, paths: readonly string[]): DraftBody {
  if (body.kind === "json") {
    const value = structuredClone(body.value);
    for (const path of paths) unsetJsonField(value, path);
    return { ...body, value };
  }
  if (body.kind === "form") return { kind: "form", value: body.value.filter(([k]) => !paths.includes(k)) };
  return body;
}

/**
 * Refuses a `STEP:` scope that names no step of what is sent, and --unset with a body of one's own.
 * @throws {UsageError} listing the steps.
 */
function _checkScopes(
  steps: readonly SequenceStep[],
  sets: readonly string[],
  unsets: readonly string[],
  ownBody: boolean,
): void {
  if (ownBody && unsets.length > 0) {
    throw new UsageError(
      "--body-file replaces the whole body, so --unset has nothing to remove: give one or the other.",
    );
  }
  for (const [option, items] of [["--set", sets], ["--unset", unsets]] as const) {
    for (const item of items) {
      const { step } = splitStep(item);
      if (step === undefined || steps.some((s, i) => stepMatches(step, i, s.event))) continue;
      throw new UsageError(
        `${option} ${item}: "${step}" names no step of what is sent; a STEP: prefix is a step's number (1 to ${steps.length}) ` +
          `or its event (${[...new Set(steps.map((s) => s.event))].slice(0, 8).join(", ")}).`,
      );
    }
  }
}

/**
 * The `--api-version` asked for, checked against the catalog's known versions.
 * @throws {UsageError} for a provider without API versions, or a version it does not know.
 */
function _apiVersion(
  known: readonly string[] | undefined,
  asked: string | undefined,
  title: string,
): string | undefined {
  if (asked === undefined) return undefined;
  if (known === undefined) {
    throw new UsageError(
      `--api-version shapes Stripe's payloads; ${title}'s have no API version hooktap can change. Leave it out.`,
    );
  }
  const newest = known.at(-1);
  if (
    !known.includes(asked) && newest !== undefined && /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/.test(asked) &&
    asked.slice(0, 10) > newest.slice(0, 10)
  ) {
    // A later version than the catalog's is a real one hooktap cannot shape (stripe@23's 2026-10-28.endive).
    throw new UsageError(
      `--api-version ${asked} is later than the newest ${title} API version hooktap's catalog knows ` +
        `(${newest}), so it cannot shape payloads for it; give ${newest} or an earlier one.`,
    );
  }
  if (!known.includes(asked)) {
    const near = closest(asked, [...known]);
    throw new UsageError(
      `--api-version ${asked} is not a ${title} API version${near ? ` (did you mean ${near}?)` : ""}; ` +
        `give one like ${known.at(-1)} (the catalog's own, the newest it knows).`,
    );
  }
  return asked;
}

/** A draft's body as bytes: JSON in the provider's indentation, a form URL-encoded, raw bytes as they are. */
function _encode(body: DraftBody): Uint8Array {
  if (body.kind === "raw") return body.bytes;
  if (body.kind === "form") return new TextEncoder().encode(new URLSearchParams(body.value).toString());
  return new TextEncoder().encode(JSON.stringify(body.value, null, body.indent || undefined));
}

/** A delivery of the plan: signed (or to be signed again, a retry), and how long to wait before it. */
type Planned = PlannedDelivery & {
  headers: [string, string][];
  bytes: Uint8Array;
  draft: Built;
  wait: number;
};

/** Signs a built delivery at a time, with extra headers; returns the signed headers and the bytes sent. */
type SignAt = (d: Built, at: Date, extra?: [string, string][]) => Promise<Signed & { bytes: Uint8Array }>;

/**
 * The steps to send: the fixture's, or the event's or the sequence's of the catalog.
 * @throws {UsageError} for an unknown event, an empty fixture, or a fixture step that is a sequence.
 */
function _resolveSteps(
  catalog: TriggerCatalog,
  request: TriggerRequest,
  provider: string,
): { sequence?: string; steps: readonly TriggerStep[] } {
  const resolved: { sequence?: string; steps: readonly TriggerStep[] } = request.steps !== undefined
    ? { steps: request.steps }
    : resolveEvent(catalog, request.event);
  if (request.steps?.length === 0) throw new UsageError("the fixture has no steps: give at least one event.");
  for (const step of resolved.steps) {
    if (catalog.events.includes(step.event)) continue;
    resolveEvent(catalog, step.event); // an unknown one: did-you-mean
    throw new UsageError(
      `a fixture step is one event, and ${step.event} is a sequence: list its events as steps ` +
        `(${suggestCommand(["trigger", "--list", provider])} shows them).`,
    );
  }
  return resolved;
}

/**
 * Refuses `--signature-url` for a provider whose signature covers no URL (only Twilio's does, and the generic
 * HMAC scheme's when its `signed` names `{url}`): it would be accepted and change nothing.
 * @throws {UsageError} naming the providers it applies to.
 */
function _checkSignatureUrl(catalog: TriggerCatalog, request: TriggerRequest, title: string): void {
  if (request.signatureUrl === undefined) return;
  if (catalog.signsUrl || (request.hmac?.signed ?? "").includes("{url}")) return;
  throw new UsageError(
    `--signature-url sets the URL a signature covers, and ${title} signs no URL: drop it. It applies to ` +
      "Twilio (its signature covers the URL) and to an endpoint's `hmac` whose `signed` names {url}.",
  );
}

/**
 * Refuses a fault that cannot apply (--stale without a signed timestamp, --stale or --bad-signature unsigned,
 * --out-of-order on one event, --retries out of range); returns the number of retries.
 * @throws {UsageError} naming the fault and the fix.
 */
function _checkFaults(
  fault: Faults,
  request: TriggerRequest,
  provider: string,
  title: string,
  mode: Signed["with"],
  stepCount: number,
): number {
  const stamp = SIGNED_TIMESTAMP[provider];
  if (fault.stale && stamp === undefined) {
    const names = timestampedProviders().map((p) => CATALOG[p]?.title ?? p);
    throw new UsageError(
      `${title} signs no timestamp, so --stale has nothing to make stale (use it with ${
        names.slice(0, -1).join(", ")
      } or ${names.at(-1)}).`,
    );
  }
  if ((fault.stale || fault.badSignature) && mode === "none") {
    throw new UsageError(
      `--${
        fault.stale ? "stale" : "bad-signature"
      } needs a signed delivery: give --secret or set the endpoint's \`secret\`.`,
    );
  }
  if (fault.outOfOrder && stepCount < 2) {
    throw new UsageError(
      `--out-of-order shuffles a sequence, and ${request.event} is one event: name a sequence ` +
        `(${suggestCommand(["trigger", "--list", provider])} shows them).`,
    );
  }
  const retries = fault.retries ?? 0;
  if (!Number.isInteger(retries) || retries < 0 || retries > 20) {
    throw new UsageError(`--retries must be a whole number from 0 to 20, got ${retries}.`);
  }
  return retries;
}

/** The context the catalog builds each event in: the start time, ids shared across steps, the secret, the API version. */
function _buildContext(
  request: TriggerRequest,
  fault: Faults,
  start: Date,
  apiVersion: string | undefined,
): BuildContext {
  const ids = new Map<string, string>();
  return {
    now: start,
    id: (name, make) => {
      let v = ids.get(name);
      if (v === undefined) ids.set(name, v = make());
      return v;
    },
    // Graph's "signature" is the clientState in the body: a bad one carries the wrong secret.
    ...(request.secret !== undefined
      ? { secret: fault.badSignature ? `${request.secret}-not-the-secret` : request.secret }
      : {}),
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(request.verifyToken !== undefined ? { verifyToken: request.verifyToken } : {}),
    webhookUrl: request.signatureUrl ?? request.to,
  };
}

/**
 * Builds every delivery (so a bad --set fails before anything is sent): the catalog's draft, the step's own
 * changes, then the user's --set, --unset, body and -H.
 */
async function _buildDrafts(
  catalog: TriggerCatalog,
  request: TriggerRequest,
  resolved: { steps: readonly TriggerStep[] },
  steps: readonly TriggerStep[],
  seed: number | undefined,
  ctx: BuildContext,
  start: Date,
): Promise<Built[]> {
  const sets = request.set ?? [];
  const unsets = request.unset ?? [];
  const drafts: Built[] = [];
  for (const [index, step] of steps.entries()) {
    const draft = await catalog.build(step.event, { ...ctx, now: start });
    let body = step.body !== undefined
      ? { kind: "json" as const, value: structuredClone(step.body) }
      : draft.body;
    body = step.set === undefined ? body : _stepSets(body, step.set);
    if (step.unset !== undefined) body = _stepUnsets(body, step.unset);
    // The user's --set and --unset: replay's meaning, on the bytes the provider would send (JSON or form),
    // each for every step or the one its STEP: names.
    const position = seed === undefined ? index : resolved.steps.indexOf(step);
    const mine = (items: readonly string[]) =>
      items.map(splitStep).filter((s) => stepMatches(s.step, position, step.event)).map((s) => s.rest);
    const type = body.kind === "form"
      ? "application/x-www-form-urlencoded"
      : _header(draft.headers, "content-type");
    const ownSets = mine(sets);
    const ownUnsets = mine(unsets);
    let bytes: Uint8Array;
    try {
      bytes = request.body !== undefined
        ? request.body
        : ownSets.length === 0
        ? _encode(body)
        : applySets(_encode(body), type, ownSets, request.setNew ?? false);
      if (request.body === undefined) bytes = applyUnsets(bytes, type, ownUnsets);
    } catch (error) {
      // In a sequence, say which step lacks the field, and that a STEP: prefix changes only the ones that have it.
      if (!(error instanceof UsageError) || steps.length < 2) throw error;
      const flag = error.message.startsWith("--unset") ? "--unset path" : "--set path=value";
      throw new UsageError(
        `Step ${
          position + 1
        } of ${steps.length} (${step.event}): ${error.message}; or change only the steps ` +
          `that have it with a STEP: prefix, a step's number (1 to ${steps.length}) or its event ` +
          `(${flag.replace(" ", ` ${steps.at(-1)!.event}:`)})`,
      );
    }
    drafts.push({
      step,
      method: draft.method ?? "POST",
      headers: applyHeaderOverrides(draft.headers, request.headers),
      bytes,
      deliveryHeader: draft.deliveryHeader,
      ...(draft.query !== undefined ? { query: draft.query } : {}),
      ...(draft.unsigned ? { unsigned: true as const } : {}),
    });
  }
  return drafts;
}

/**
 * The signer of the deliveries: at a time (stale when asked), with the material (the wrong one for
 * --bad-signature), a timestamp in the body set to the signing time.
 */
function _signer(
  provider: string,
  request: TriggerRequest,
  fault: Faults,
  wrong: SigningMaterial,
  tolerance: number,
  signUrl: string,
): SignAt {
  const stamp = SIGNED_TIMESTAMP[provider];
  const sets = request.set ?? [];
  // A timestamp signed in the body (Linear's webhookTimestamp) is the signing time, unless the user
  // chose the bytes (--body) or the field (--set webhookTimestamp=...).
  const bodyStamp = stamp !== undefined && "bodyField" in stamp && request.body === undefined &&
      !sets.some((s) => s.startsWith(`${stamp.bodyField}=`))
    ? stamp.bodyField
    : undefined;
  const overrides = signatureOverrides(provider, request);
  return async (d: Built, at: Date, extra: [string, string][] = []) => {
    if (d.unsigned) {
      // Sent unsigned by the provider itself: no signature to make (nor a wrong one to fake).
      return {
        headers: applyHeaderOverrides(d.headers, extra).filter(([, v]) => v !== ""),
        with: "none",
        bytes: d.bytes,
      };
    }
    const when = fault.stale ? staleTime(provider, at, tolerance) : at;
    const bytes = bodyStamp === undefined
      ? d.bytes
      : applySets(d.bytes, "application/json", [`${bodyStamp}=${when.getTime()}`], true);
    const signed = await signDelivery(
      provider,
      { method: d.method, url: signUrl, headers: applyHeaderOverrides(d.headers, extra), body: bytes },
      wrong,
      when,
      tolerance,
    );
    // -H on a signature header is the user's word over the signer's: removed or replaced as it says.
    if (overrides.length > 0) {
      return { ...signed, headers: applyHeaderOverrides(signed.headers, overrides), bytes };
    }
    return { ...signed, bytes };
  };
}

/**
 * The `-H` options that name one of `provider`'s signature headers (`Stripe-Signature`, an `hmac`
 * endpoint's header): applied after signing, so `-H "Stripe-Signature:"` sends none and
 * `-H "Stripe-Signature: t=1,v1=x"` sends that.
 */
export function signatureOverrides(
  provider: string,
  request: Pick<TriggerRequest, "headers" | "hmac">,
): [string, string][] {
  const names = new Set([
    ...(CATALOG[provider]?.signatureHeaders ?? []),
    ...(request.hmac?.header !== undefined ? [request.hmac.header.toLowerCase()] : []),
  ]);
  return (request.headers ?? []).filter(([n]) => names.has(n.toLowerCase())).map(([n, v]) => [n, v]);
}

/** The plan: each delivery signed at `start`, then its duplicate and its retries (the faults asked for). */
async function _plan(
  drafts: readonly Built[],
  signAt: SignAt,
  start: Date,
  fault: Faults,
  waits: readonly number[],
  retries: number,
): Promise<Planned[]> {
  const plan: Planned[] = [];
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
      bytes: signed.bytes,
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
        bytes: signed.bytes,
        fault: "duplicate",
        ...(match ? { match } : {}),
      });
    }
    for (let i = 1; i <= retries; i++) {
      plan.push({
        event: d.step.event,
        attempt: i,
        headers: [],
        bytes: signed.bytes,
        draft: d,
        wait: waits[i - 1]!,
        fault: "retry",
        // A retry is the same delivery: its id stays (Twitch-Eventsub-Message-Id, svix-id, ...).
        ...(match ? { match } : {}),
      });
    }
  }
  return plan;
}

/** What sending the plan needs: where, how it was signed, and the effects. */
interface Sending {
  provider: string;
  catalog: TriggerCatalog;
  url: URL;
  mode: Signed["with"];
  fault: Faults;
  signAt: SignAt;
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  send: typeof sendRaw;
  effects: TriggerEffects;
  /** The secret signed with, which Zoom's handshake answer must use. */
  secret?: string;
  /** `-H` options on signature headers, applied after signing. */
  signatureOverrides: readonly [string, string][];
  /** The URL the signature covers, when the provider signs one. */
  signedUrl?: string;
}

/** Sends the plan in order (a retry waits and is signed again), and collects what each got. */
async function _sendPlan(plan: readonly Planned[], s: Sending): Promise<Delivery[]> {
  const { provider, catalog, url, mode, fault, signAt, now, sleep, send, effects } = s;
  const deliveries: Delivery[] = [];
  for (const p of plan) {
    if (effects.signal?.aborted) break;
    if (p.wait > 0) await sleep(p.wait, effects.signal);
    let headers = p.headers;
    let bytes = p.bytes;
    if (p.attempt > 0) {
      const keep: [string, string][] = p.match ? [p.match] : [];
      const again = await signAt(p.draft, now(), [...(catalog.retryHeaders?.(p.attempt) ?? []), ...keep]);
      headers = again.headers;
      bytes = again.bytes;
    }
    // A GET the provider sends bodiless (Meta's verification) goes without a Content-Length, as it does.
    if (
      _header(headers, "content-length") === undefined && !(p.draft.method === "GET" && bytes.length === 0)
    ) {
      headers = [...headers, ["Content-Length", String(bytes.length)]];
    }
    const to = p.draft.query === undefined ? url : _withQuery(url, p.draft.query);
    const match = p.match ?? _match(headers, p.draft.deliveryHeader);
    const expectRejection = fault.stale === true || fault.badSignature === true;
    await effects.beforeSend?.({
      event: p.event,
      attempt: p.attempt,
      body: bytes,
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
      url: to.href,
      headers,
      body: bytes,
      signed: p.draft.unsigned ? "none" : mode,
      expectRejection,
      durationMs: 0,
      ok: false,
      ...(s.signatureOverrides.length > 0
        ? { signatureHeaders: s.signatureOverrides.map(([name, value]) => ({ name, value })) }
        : {}),
      ...(s.signedUrl !== undefined && mode !== "none" ? { signedUrl: s.signedUrl } : {}),
    };
    try {
      const answer = await send(to, { method: p.draft.method, headers, body: bytes }, {
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
      const handshake = accepted && !expectRejection && HANDSHAKES.has(provider)
        ? await lazyImport<typeof import("./handshake.ts")>("src/trigger/handshake.ts")
        : undefined;
      const problem = await handshake?.handshakeProblem(
        provider,
        { headers, body: bytes, ...(p.draft.query !== undefined ? { query: p.draft.query } : {}) },
        answer.status,
        answer.body,
        s.secret,
      );
      const byApp = _devOwn(answer.body)
        ? handshake?.answeredByApp(provider, { headers, body: bytes })
        : undefined;
      if (byApp !== undefined) {
        // dev's own 200 (its endpoint forwards in queue mode, or not at all): delivered and captured, but the
        // provider would get that answer, not the app's.
        delivery.answerNote =
          `${problem ?? byApp}: this is hooktap dev's own answer (its endpoint forwards in queue ` +
          'mode, or not at all), and your app\'s reaches no one: forward with mode: "relay"';
      } else if (problem !== undefined) {
        delivery.ok = false;
        delivery.answerProblem = problem;
      }
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
    delivery.durationMs = Math.round(performance.now() - began);
    const late = _late(provider, delivery);
    if (late !== undefined) {
      delivery.ok = false;
      delivery.answerProblem = late;
    }
    deliveries.push(delivery);
    await effects.onDelivery?.(delivery);
  }
  return deliveries;
}

/** `url` with `query` added to its own (Meta's verification: `?hub.mode=subscribe&...`). */
function _withQuery(url: URL, query: string): URL {
  const to = new URL(url.href);
  to.search = to.search === "" ? query : `${to.search.slice(1)}&${query}`;
  return to;
}

/** The answer is `hooktap dev`'s own `{"ok":true,"id":"evt_...",...}`, not the app's. */
function _devOwn(body: Uint8Array): boolean {
  return /^\{"ok":true,"id":"evt_/.test(new TextDecoder().decode(body.subarray(0, 24)));
}

/**
 * Why an answer the sender would take came too late for it: after the time the provider waits (Slack, Discord,
 * Zoom: 3 s), it has given up and counts the delivery as failed, whatever the answer.
 */
function _late(provider: string, d: Delivery): string | undefined {
  const within = CATALOG[provider]?.answerWithinMs;
  if (within === undefined || d.status === undefined || !d.ok || d.expectRejection) return undefined;
  if (d.durationMs <= within) return undefined;
  const title = CATALOG[provider]?.title ?? provider;
  return `${title} waits ${
    within / 1000
  } s for the answer: it would have given up and counted the delivery ` +
    "failed; answer first, then do the slow work";
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
  _checkSignatureUrl(catalog, request, title);
  const resolved = _resolveSteps(catalog, request, provider);
  const apiVersion = _apiVersion(catalog.apiVersions, request.apiVersion, title);
  const url = new URL(request.to);
  const material = {
    ...(request.secret !== undefined ? { secret: request.secret } : {}),
    ...(request.hmac !== undefined ? { hmac: request.hmac } : {}),
    ...(request.keys !== undefined ? { keys: request.keys } : {}),
  };
  const mode = signingMode(provider, material);
  _checkScopes(resolved.steps, request.set ?? [], request.unset ?? [], request.body !== undefined);
  const retries = _checkFaults(fault, request, provider, title, mode, resolved.steps.length);
  const seed = fault.outOfOrder ? fault.seed ?? Math.floor(Math.random() * 2 ** 31) : undefined;
  const steps = seed === undefined ? resolved.steps : shuffled(resolved.steps, seed);
  const start = now();
  const ctx = _buildContext(request, fault, start, apiVersion);
  const tolerance = Math.max(request.tolerance ?? 300, TOLERANCE_FLOOR[provider] ?? 0);
  const wrong = fault.badSignature
    ? {
      ...material,
      ...(material.secret !== undefined ? { secret: `${material.secret}-not-the-secret` } : {}),
      ...(mode === "key"
        ? {
          keys: await (await lazyImport<typeof import("./keys.ts")>("src/trigger/keys.ts")).makeTriggerKeys(),
        }
        : {}),
    }
    : material;
  const signUrl = request.signatureUrl ?? url.href;
  const drafts = await _buildDrafts(catalog, request, resolved, steps, seed, ctx, start);
  const signAt = _signer(provider, request, fault, wrong, tolerance, signUrl);
  const waits = retryWaits(catalog.retries, retries, fault.realTime ?? false);
  const plan = await _plan(drafts, signAt, start, fault, waits, retries);
  const deliveries = await _sendPlan(plan, {
    provider,
    catalog,
    url,
    mode,
    fault,
    signAt,
    now,
    sleep,
    send,
    effects,
    ...(material.secret !== undefined ? { secret: material.secret } : {}),
    signatureOverrides: signatureOverrides(provider, request),
    ...(catalog.signsUrl ? { signedUrl: signUrl } : {}),
  });
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
