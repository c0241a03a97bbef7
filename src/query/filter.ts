/**
 * Which events a reader keeps: by endpoint, method, time range, text in the
 * body or header values (`--grep`), a JSON field of the body (`--where`), a
 * header (`--header`), the provider fields, and the delivery state (the
 * inspector's list). {@linkcode compileFilter}
 * turns a filter into two tests: a cheap one on a stored line's text (run on
 * every line, before `JSON.parse`) that never rejects a line that matches,
 * and the exact one on the parsed event. Parsing of `--since`/`--until`
 * times and durations lives here too. Pure.
 * @module
 */
import { UsageError } from "../errors.ts";
import { parseDuration, parseWhen } from "../text/values.ts";
import { VERDICT_NAMES } from "../names.ts";
import type { CapturedEvent, VerdictStatus } from "../event/record.ts";
import { grepOnLine } from "./_grep_line.ts";
import type { DeliveryState, EventFilter } from "./event_filter.ts";
import { bodyText, compileHeader, compileWhere, esc1, type FieldTest, reEscape } from "./_match.ts";

/** The filter and the delivery states (defined in a leaf of types, src/query/event_filter.ts). */
export type { DeliveryState, EventFilter };

/** The delivery states a filter accepts. */
export const DELIVERY_STATES: readonly DeliveryState[] = [
  "none",
  "pending",
  "delivered",
  "retrying",
  "failed",
];

/**
 * A delivery state given as text.
 * @throws {UsageError} for anything else.
 */
export function parseDeliveryState(text: string): DeliveryState {
  const v = text.trim().toLowerCase();
  if ((DELIVERY_STATES as readonly string[]).includes(v)) return v as DeliveryState;
  throw new UsageError(`--delivery must be one of ${DELIVERY_STATES.join(", ")}; got "${text}".`);
}

/** Options of {@linkcode compileFilter}. */
export interface CompileOptions {
  /** The delivery state of an event, for `filter.delivery` (read from `.hooktap/deliveries.jsonl`). */
  deliveryOf?: (event: CapturedEvent) => DeliveryState;
}

/** The verdicts `--verdict` accepts. */
export const VERDICTS: readonly VerdictStatus[] = VERDICT_NAMES;

/**
 * A `--verdict` value (`no secret` and `no_secret` are `no-secret`).
 * @throws {UsageError} for anything else.
 */
export function parseVerdict(text: string): VerdictStatus {
  const v = text.trim().toLowerCase().replace(/[\s_]+/g, "-");
  if ((VERDICTS as readonly string[]).includes(v)) return v as VerdictStatus;
  throw new UsageError(`--verdict must be one of ${VERDICTS.join(", ")}; got "${text}".`);
}

function _typeMatches(type: string | undefined, wanted: string): boolean {
  if (type === undefined) return false;
  if (type === wanted) return true;
  // A prefix ends where the sender's own hierarchy does: `.` (GitHub, Stripe, Zoom), `/` (Shopify's
  // `orders/create`) or the space of a compound type (Slack's `event_callback message`).
  const next = type.charCodeAt(wanted.length);
  return type.startsWith(wanted) && (next === 0x2e || next === 0x2f || next === 0x20);
}

/** A filter compiled for scanning. */
export interface CompiledFilter {
  /** Earliest arrival time kept (ms), if any: ids are time-ordered, so scans can stop early. */
  readonly sinceMs?: number;
  /** Arrival time (ms) kept only below this. */
  readonly untilMs?: number;
  /** Endpoint asked for, if any. */
  readonly endpoint?: string;
  /**
   * A pattern some part of every matching line's text holds (a superset
   * test); a scanner can search a whole chunk for it and look only at the
   * lines around its hits. `undefined` when there is none.
   */
  readonly anchor?: RegExp;
  /**
   * Lines holding this text are candidates too, whatever `anchor` says (a
   * base64 body cannot be searched as text). Kept out of `anchor` because an
   * alternation would keep the regex engine from its fast literal search.
   */
  readonly alsoLinesWith?: string;
  /** Cheap test on a stored line's text, after `anchor`: `false` means it cannot match. */
  line(text: string): boolean;
  /** The exact test on the parsed event. */
  event(event: CapturedEvent): boolean;
  /** Whether `event` tests more than the endpoint and the time, which a line's first bytes tell. */
  readonly needsParse: boolean;
  /** Whether `line` tests anything. */
  readonly hasLineTest: boolean;
  /**
   * The exact test decided on a line's text without parsing it, when that is
   * possible (`undefined` from it: parse and use `event`). For counting.
   */
  readonly lineExact?: (line: string) => boolean | undefined;
}

const BASE64_MARK = '"bodyEncoding":"base64"';

/** Smart case: a term with an upper-case letter is matched exactly, any other in any case. */
export function grepPattern(term: string): RegExp {
  // ASCII terms go without the u flag: V8 searches those fastest, and the two agree on ASCII.
  const unicode = /[^\p{ASCII}]/u.test(term) ? "u" : "";
  return new RegExp(reEscape(term), (/\p{Lu}/u.test(term) ? "" : "i") + unicode);
}

/**
 * Compiles `filter`.
 * @throws {UsageError} for a malformed `--where` or `--header`, or a delivery state without `deliveryOf`.
 */
export function compileFilter(filter: EventFilter, options: CompileOptions = {}): CompiledFilter {
  let grep: RegExp | undefined; // the escaped term, for deciding --grep on a line
  // Each must occur in a matching line's text (unless the line holds its `unless`).
  const terms: { re: RegExp; unless?: string }[] = [];
  const exact: ((e: CapturedEvent) => boolean)[] = [];
  if (filter.method !== undefined) {
    const m = filter.method.toUpperCase();
    terms.push({ re: new RegExp(reEscape(`"method":${JSON.stringify(m)}`), "i") });
    exact.push((e) => e.method.toUpperCase() === m);
  }
  const sinceMs = filter.since?.getTime();
  const untilMs = filter.until?.getTime();
  if (filter.grep !== undefined && filter.grep !== "") {
    const re = grepPattern(filter.grep);
    // The line holds every string once JSON-escaped; escaping is per character, so a
    // term in a value is there escaped. A base64 body cannot be searched as text.
    terms.unshift({ re: new RegExp(reEscape(esc1(filter.grep)), re.flags), unless: BASE64_MARK });
    exact.push((e) =>
      re.test(bodyText(e)) || e.headers.some(([, v]) => re.test(v)) || re.test(e.path) || re.test(e.query)
    );
    grep = new RegExp(reEscape(esc1(filter.grep)), re.flags + "g");
  }
  for (const text of filter.header ?? []) {
    const h = compileHeader(text);
    if (h.term !== undefined) terms.push({ re: h.term });
    exact.push(h.test);
  }
  for (const text of filter.where ?? []) {
    const w: FieldTest = compileWhere(text);
    if (w.term !== undefined) {
      terms.push(w.unless === undefined ? { re: w.term } : { re: w.term, unless: w.unless });
    }
    exact.push(w.test);
  }
  if (filter.provider !== undefined) {
    const want = filter.provider.toLowerCase();
    if (want === "generic") {
      // The fallback's events carry no provider (src/providers/examine.ts): no line test can pick them.
      exact.push((e) => e.provider === undefined);
    } else {
      terms.push({ re: new RegExp(reEscape(`"provider":${JSON.stringify(want)}`)) });
      exact.push((e) => e.provider === want);
    }
  }
  if (filter.type !== undefined) {
    const want = filter.type;
    // Before the first dot only: an event stored with the short type of a form body is typed when read.
    terms.push({ re: new RegExp(reEscape(`"type":${JSON.stringify(want.split(".")[0]!).slice(0, -1)}`)) });
    exact.push((e) => _typeMatches(e.type, want));
  }
  if (filter.path !== undefined) {
    const want = filter.path;
    const prefix = want.endsWith("*") ? want.slice(0, -1) : undefined;
    const stem = prefix ?? want;
    terms.push({ re: new RegExp(reEscape(`"path":${JSON.stringify(stem).slice(0, -1)}`)) });
    exact.push(prefix === undefined ? (e) => e.path === want : (e) => e.path.startsWith(prefix));
  }
  if (filter.verdict !== undefined) {
    const want = filter.verdict;
    // An event without a verdict counts as unsigned: no line test can rule those out.
    if (want !== "unsigned") terms.push({ re: new RegExp(reEscape(`"status":${JSON.stringify(want)}`)) });
    exact.push((e) => (e.verdict?.status ?? "unsigned") === want);
  }
  if (filter.delivery !== undefined) {
    const want = filter.delivery;
    const of = options.deliveryOf;
    if (of === undefined) {
      throw new UsageError("A delivery state filter needs the deliveries log to be read.");
    }
    exact.push((e) => of(e) === want);
  }
  // With --grep the only test that needs the event, a line can often be decided as it is.
  const lineExact = grep !== undefined && exact.length === 1
    ? (line: string) => grepOnLine(line, grep!)
    : undefined;
  const needsParse = exact.length > 0;
  // Endpoint and time: the scanners test them on the line's id and endpoint; tested here for the rest.
  if (filter.endpoint !== undefined) {
    const name = filter.endpoint;
    exact.push((e) => e.endpoint === name);
  }
  if (sinceMs !== undefined) exact.push((e) => Date.parse(e.receivedAt) >= sinceMs);
  if (untilMs !== undefined) exact.push((e) => Date.parse(e.receivedAt) < untilMs);
  const [anchor, ...rest] = terms;
  return {
    ...(sinceMs !== undefined ? { sinceMs } : {}),
    ...(untilMs !== undefined ? { untilMs } : {}),
    ...(filter.endpoint !== undefined ? { endpoint: filter.endpoint } : {}),
    ...(anchor !== undefined ? { anchor: anchor.re } : {}),
    ...(anchor?.unless !== undefined ? { alsoLinesWith: anchor.unless } : {}),
    line: (text) => rest.every((t) => t.re.test(text) || (t.unless !== undefined && text.includes(t.unless))),
    event: (e) => exact.every((test) => test(e)),
    needsParse,
    hasLineTest: rest.length > 0,
    ...(lineExact !== undefined ? { lineExact } : {}),
  };
}

/** Whether `event` passes `filter` (the exact test alone). */
export function matchesFilter(event: CapturedEvent, filter: EventFilter): boolean {
  return compileFilter(filter).event(event);
}

/** A duration in milliseconds (src/text/values.ts, re-exported for the filter's users). */
export { parseDuration };

/**
 * The time a `--since` (or `--until`, with `flag`) value stands for: a
 * duration back from `now` (`10m`, `2h`) or an ISO 8601 date or time
 * (`2024-05-01`, `2024-05-01T10:00:00Z`).
 * @throws {UsageError} for anything else.
 */
export function parseSince(text: string, now: Date = new Date(), flag = "--since"): Date {
  const at = parseWhen(text, now);
  if (at !== undefined) return at;
  throw new UsageError(
    `${flag} must be a duration like 10m, 2h or 1d, or an ISO time like 2024-05-01T10:00:00Z; got "${text}".`,
  );
}
