/**
 * Sending stored events again (`replay ID`, bulk `replay`, `replay
 * --undelivered`, the inspector): each event is prepared with the same
 * options (./prepare.ts: overrides, `--resign`) and delivered once to its
 * named target by the forwarder's own {@linkcode deliverOnce} over the same
 * client, then recorded in the deliveries log (`"source": "replay"`). One
 * at a time, in the order given, optionally at a steady rate; a stop
 * (Ctrl-C) lets the send in flight finish.
 * @module
 */
import { describeError, NetworkError } from "../errors.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import type { CapturedEvent } from "../event/record.ts";
import type { ProviderSettings } from "../providers/types.ts";
import type { StorePaths } from "../store/paths.ts";
import type { RawResponse, SendError } from "./client.ts";
import { deliverOnce } from "./deliver.ts";
import { openDeliveriesLog } from "./deliveries_log.ts";
import { eachDelivery, readDeliveriesOf } from "./deliveries_read.ts";
import type { Overrides } from "./overrides.ts";
import { InvalidSignatureError, type OutgoingRequest, prepareRequest } from "./prepare.ts";
import { signatureFault } from "../providers/verdict_reason.ts";
import { providerFacts } from "../providers/catalog.ts";
import { deliveryUrl, type SendTarget } from "./target.ts";

/** A target with the connection settings of a send. */
export interface ResendTarget extends SendTarget {
  /** Longest wait for the answer, ms. @default 30000 */
  readonly timeoutMs?: number;
  /** Accept any certificate. @default false */
  readonly insecure?: boolean;
  /** PEM of an extra CA. */
  readonly ca?: string;
}

/** Where replay sends are recorded: the log is read once (attempt numbers) and opened once. */
export interface ReplayLog {
  newId(date: Date): string;
  /** The number of the next replay send of `event` to the target named `target`. */
  nextAttempt(event: string, target: string): number;
  append(record: DeliveryRecord): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the deliveries log of the store `paths` for replay sends of `events`: their earlier replay sends
 * are counted (only theirs are read: ./deliveries_read.ts), so each new one is numbered after them.
 * Without `events` (a bulk replay streamed from the store), every replay send of the log is counted.
 * `background`: read without holding a server's event loop (the inspector inside `dev`).
 */
export async function openReplayLog(
  paths: StorePaths,
  events?: readonly Pick<CapturedEvent, "id" | "receivedAt">[],
  options: { background?: boolean } = {},
): Promise<ReplayLog> {
  const file = paths.deliveries;
  const counts = new Map<string, number>();
  const next = (event: string, target: string) => {
    const key = `${event} ${target}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    return n;
  };
  const count = (d: DeliveryRecord) => {
    if (d.source === "replay" && d.refused !== true) next(d.event, d.target); // nothing listened: none
  };
  if (events === undefined) await eachDelivery(file, count);
  else for (const records of (await readDeliveriesOf(file, events, options)).values()) records.forEach(count);
  const log = await openDeliveriesLog(file);
  return {
    newId: (d) => log.newId(d),
    nextAttempt: next,
    append: (r) => log.append(r),
    close: () => log.close(),
  };
}

/** Options of {@linkcode resendEach}. */
export interface ResendOptions {
  /** The target of each event (the `--to` URL, or its endpoint's forward target). */
  targetOf: (event: CapturedEvent) => ResendTarget;
  /** `-X`, `-H`, `--body-file`, `--set`. @default {} */
  overrides?: Overrides;
  /** Sign afresh (`--resign`). @default false */
  resign?: boolean;
  /** Sign afresh even events stored with an `invalid` verdict (`--resign-invalid`). @default false */
  resignInvalid?: boolean;
  /**
   * The signing settings of an endpoint (its secret), from the config: `null` when the config was read and
   * the endpoint has none, `undefined` when it was not read.
   */
  settingsOf?: (endpoint: string) => ProviderSettings | null | undefined;
  /** Where sends are recorded; none: nothing is written. */
  log?: ReplayLog;
  /** Sends per second at most. @default unlimited */
  rate?: number;
  /** Stops after the send in flight (it is not cancelled). */
  signal?: AbortSignal;
  /** How much of each answer's body to keep, in bytes. @default 65536 */
  maxBody?: number;
  /** Keep connections open between sends. @default true */
  keepAlive?: boolean;
  /** Called after each event with what happened (before the next one is sent). */
  onSend?: (sent: Sent) => void | Promise<void>;
  /** Waits (for the rate). @default setTimeout, cut short by `signal` */
  sleep?: (ms: number) => Promise<void>;
  /** Clock. @default () => new Date() */
  now?: () => Date;
}

/** One event sent (or not: `problem` says why it could not be prepared). */
export interface Sent {
  event: CapturedEvent;
  target: ResendTarget;
  /** What went out. */
  request?: OutgoingRequest;
  /** The delivery record (when it went out). */
  record?: DeliveryRecord;
  /** The app's answer, when there was one. */
  response?: RawResponse;
  /** Why there was no answer. */
  error?: SendError;
  /** Why it was not sent (it could not be prepared: re-signing impossible, a bad `--set` path). */
  problem?: Error;
  /** The record could not be written. */
  unrecorded?: boolean;
}

/** What a run of sends came to: what the app answered. */
export interface ResendSummary {
  /** Events tried. */
  sent: number;
  /** Answered 2xx. */
  ok: number;
  /** Answered otherwise, not reachable, or not sent. */
  failed: number;
  /** How many times each answer came: `"200"`, `"400"`, `"no answer"`, `"not sent"`. */
  answers: Record<string, number>;
  /** The first send that was not answered 2xx. */
  firstFailure?: Sent;
  /** Failed sends whose signature was stale and not made anew (`--resign` would help). */
  stale: number;
  /**
   * Failed sends, answered, of events whose sender signs the URL it called (Twilio) and whose stored
   * signature was valid, sent as stored: it never fits the app's URL (`--resign` signs it for that URL).
   */
  urlSigned: number;
  /**
   * Sends of events stored with an invalid signature, sent as received, that the app answered otherwise than
   * 2xx: an app that refuses them is right, and fixing it changes nothing.
   */
  invalid: number;
  /**
   * Events not sent because `--resign` refused them: their signature was invalid when hooktap received
   * them (`--resign-invalid` signs them anyway). The app never saw them.
   */
  refusedInvalid: number;
  /** The first of {@linkcode refusedInvalid}. */
  firstRefused?: Sent;
  /**
   * Of {@linkcode invalid} and {@linkcode refusedInvalid}: events `hooktap trigger` made invalid on
   * purpose (`--bad-signature`, `--stale`: their record says so), so the refusal is what the fault tests.
   */
  faults: number;
  /**
   * Of {@linkcode failed}: sends that found nothing listening (the connection was refused). They reached no
   * app; to a forward target they change nothing of the event's state (it still waits).
   */
  unreached: number;
  /** Where nothing listened, `http://host:port`, each once in the order met. */
  unreachedAt: string[];
  /** The endpoints of the events that failed (any way), each once in the order met. */
  failedEndpoints: string[];
  /** Sends that could not be recorded. */
  unrecorded: number;
  /** Stopped before the end. */
  interrupted: boolean;
}

function _sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Whether a send was answered 2xx. */
export function answeredOk(sent: Sent): boolean {
  const s = sent.response?.status;
  return s !== undefined && s >= 200 && s < 300;
}

/** Prepares and sends one event to its target, recording it. */
export async function sendOne(event: CapturedEvent, options: ResendOptions): Promise<Sent> {
  const now = options.now ?? (() => new Date());
  const target = options.targetOf(event);
  const url = deliveryUrl(event, target.to);
  let request: OutgoingRequest;
  try {
    const settings = options.settingsOf?.(event.endpoint);
    request = await prepareRequest(event, url, {
      ...(options.overrides ? { overrides: options.overrides } : {}),
      resign: options.resign ?? false,
      ...(options.resignInvalid ? { resignInvalid: true } : {}),
      ...(settings !== undefined ? { settings } : {}),
      now: now(),
    });
  } catch (error) {
    return { event, target, problem: error instanceof Error ? error : new Error(String(error)) };
  }
  const log = options.log;
  const outcome = await deliverOnce(event, target, {
    id: log?.newId(now()) ?? "dlv" + crypto.randomUUID(),
    source: "replay",
    attempt: log?.nextAttempt(event.id, target.name) ?? 1,
    request,
    ...(target.timeoutMs !== undefined ? { timeoutMs: target.timeoutMs } : {}),
    ...(target.insecure !== undefined ? { insecure: target.insecure } : {}),
    ...(target.ca !== undefined ? { ca: target.ca } : {}),
    ...(options.maxBody !== undefined ? { maxBody: options.maxBody } : {}),
    ...(options.keepAlive !== undefined ? { keepAlive: options.keepAlive } : {}),
    now,
  });
  // Nothing listened: no attempt, and to a forward target no change of its state (delivery_state.ts).
  if (outcome.error?.kind === "refused") outcome.record.refused = true;
  const sent: Sent = { event, target, request, record: outcome.record };
  if (outcome.response) sent.response = outcome.response;
  if (outcome.error) sent.error = outcome.error;
  if (log !== undefined) {
    try {
      await log.append(outcome.record);
    } catch {
      sent.unrecorded = true;
    }
  }
  return sent;
}

/** Sends each of `events` to its target, in order; resolves to what the app answered. */
export async function resendEach(
  events: AsyncIterable<CapturedEvent> | Iterable<CapturedEvent>,
  options: ResendOptions,
): Promise<ResendSummary> {
  const { rate, signal } = options;
  const sleep = options.sleep ?? ((ms: number) => _sleep(ms, signal));
  const summary: ResendSummary = {
    sent: 0,
    ok: 0,
    failed: 0,
    answers: {},
    stale: 0,
    urlSigned: 0,
    invalid: 0,
    refusedInvalid: 0,
    faults: 0,
    unreached: 0,
    unreachedAt: [],
    failedEndpoints: [],
    unrecorded: 0,
    interrupted: false,
  };
  const gap = rate === undefined ? 0 : 1000 / rate;
  let next = performance.now();
  for await (const event of events) {
    if (signal?.aborted) break;
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
    if (signal?.aborted) break;
    next = Math.max(next + gap, performance.now());
    const sent = await sendOne(event, options);
    summary.sent++;
    const key = sent.problem ? "not sent" : sent.response ? String(sent.response.status) : "no answer";
    summary.answers[key] = (summary.answers[key] ?? 0) + 1;
    if (answeredOk(sent)) summary.ok++;
    else _countFailure(summary, sent);
    if (sent.unrecorded) summary.unrecorded++;
    await options.onSend?.(sent);
  }
  summary.interrupted = signal?.aborted ?? false;
  return summary;
}

/** Counts a send that was not answered 2xx into `summary`: why, and whether the app saw it. */
function _countFailure(summary: ResendSummary, sent: Sent): void {
  const event = sent.event;
  summary.failed++;
  summary.firstFailure ??= sent;
  if (!summary.failedEndpoints.includes(event.endpoint)) summary.failedEndpoints.push(event.endpoint);
  if (sent.record?.refused === true) {
    summary.unreached++;
    const url = new URL(sent.record.url);
    const where = `${url.protocol}//${url.host}`;
    if (!summary.unreachedAt.includes(where)) summary.unreachedAt.push(where);
  }
  if (sent.request?.warning !== undefined && sent.request.resigned === undefined) summary.stale++;
  // Only an app that answered refused it: an invalid signature explains no missing answer.
  const answered = sent.response !== undefined;
  // Sent as received (it went out, not re-signed), or refused before sending: never both.
  const asReceived = sent.request !== undefined && sent.request.resigned === undefined;
  const refused = sent.problem instanceof InvalidSignatureError;
  const invalid = event.verdict?.status === "invalid" && asReceived && answered;
  if (invalid) summary.invalid++;
  const valid = event.verdict?.status === "valid";
  if (
    valid && asReceived && answered && event.provider !== undefined && providerFacts(event.provider)?.signsUrl
  ) {
    summary.urlSigned++;
  }
  if (refused) {
    summary.refusedInvalid++;
    summary.firstRefused ??= sent;
  }
  if ((refused || invalid) && signatureFault(event) !== undefined) summary.faults++;
}

/** The JSON a replay prints per send (`--json`) and the inspector answers. */
export interface ReplayResult {
  id: string;
  /** The target's name. */
  target: string;
  url: string;
  method: string;
  status?: number;
  statusText?: string;
  /** Whether the status is 2xx. */
  ok: boolean;
  durationMs: number;
  /** The answer's `location` header (on a redirect, which is not followed). */
  location?: string;
  contentType?: string;
  /**
   * Start of the answer's body, decoded as UTF-8 (from its `Content-Encoding` first: gzip, deflate, br); left
   * out when it is not UTF-8 text (`binary`).
   */
  body?: string;
  truncated?: boolean;
  /** The answer's body is not UTF-8 text: `body` is left out rather than shown as replacement characters. */
  binary?: true;
  /** The answer body's length in bytes, as received. */
  bodySize?: number;
  /** The provider whose signature was made anew. */
  resigned?: string;
  /** Why the app will likely refuse it (a stale signature not made anew). */
  warning?: string;
  /** Why there was no answer, or why it was not sent. */
  error?: string;
}

/** `bytes` as UTF-8 text (a character cut at its end is left out), or `undefined` when they are not text. */
function utf8Start(bytes: Uint8Array): string | undefined {
  try {
    // `stream`: a character the cut split at the end is kept back, not an error.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return undefined;
  }
}

/** A send as {@linkcode ReplayResult}, the answer's body cut to `previewBytes`. */
export function replayResult(sent: Sent, previewBytes = 4096): ReplayResult {
  const r = sent.record;
  const result: ReplayResult = {
    id: sent.event.id,
    target: sent.target.name,
    url: r?.url ?? deliveryUrl(sent.event, sent.target.to).href,
    method: r?.method ?? sent.event.method,
    ok: answeredOk(sent),
    durationMs: r?.durationMs ?? 0,
  };
  const res = sent.response;
  if (res !== undefined) {
    result.status = res.status;
    result.statusText = res.statusText;
    const find = (n: string) => res.headers.find(([k]) => k.toLowerCase() === n)?.[1];
    const location = find("location");
    if (location !== undefined) result.location = location;
    const contentType = find("content-type");
    if (contentType !== undefined) result.contentType = contentType;
    if (r?.decodedFrom !== undefined && r.bodyEncoding === "utf8") {
      // A compressed answer: its decoded text (the record's), not the compressed bytes read as UTF-8.
      const text = r.body ?? "";
      result.body = text.slice(0, previewBytes);
      result.truncated = r.truncated === true || text.length > previewBytes;
    } else {
      const text = utf8Start(res.body.subarray(0, previewBytes));
      if (text === undefined) result.binary = true;
      else result.body = text;
      result.truncated = res.bodySize > previewBytes;
    }
    result.bodySize = res.bodySize;
  }
  if (sent.request?.resigned !== undefined) result.resigned = sent.request.resigned;
  if (sent.request?.warning !== undefined) result.warning = sent.request.warning;
  if (sent.problem) result.error = describeError(sent.problem);
  else if (sent.error) result.error = sent.error.message;
  return result;
}

/**
 * The one-line error of a send that got no answer (`hooktap replay ID` throws it), led by what failed (the
 * connection refused, no answer in time, TLS, the name not resolved). `refusedFix`: what to check when the
 * connection was refused (`""`: the caller says it); by default whether the app runs, for a send to the app.
 */
export function noAnswer(sent: Sent, refusedFix = "is your app running?"): NetworkError {
  const url = new URL(sent.record?.url ?? sent.target.to);
  const where = `${url.protocol}//${url.host}`;
  const e = sent.error;
  if (e?.kind === "timeout") {
    const s = (sent.target.timeoutMs ?? 30_000) / 1000;
    return new NetworkError(`No answer from ${where} within ${s} s (--timeout to wait longer).`);
  }
  const reason = e?.kind === "refused"
    ? `connection refused: nothing listens on ${url.host}${refusedFix === "" ? "" : ` (${refusedFix})`}`
    : (e?.message ?? "no answer");
  return new NetworkError(`Cannot replay to ${where}: ${reason.replace(/[.\s]+$/, "")}.`, { cause: e });
}
