/**
 * `waitFor`: filters over received events, the pending waits, and the
 * message a timed-out wait gives (what did arrive, and what was refused).
 * Owns its timers: each is cleared when its wait settles or is closed.
 * @module
 */
import type { VerdictStatus } from "../event/record.ts";
import { VERDICT_NAMES } from "../names.ts";
import type { RequestOutcome } from "../receiver/handler.ts";
import { describeEvent, type ReceivedEvent } from "./event.ts";

/** Fields an event must have to match; every given field must match. */
export interface EventFilter {
  /** Name of the endpoint. */
  endpoint?: string;
  /** HTTP method, any case. */
  method?: string;
  /** The exact path, or a pattern it matches. */
  path?: string | RegExp;
  /** The provider (`github`, `stripe`). */
  provider?: string;
  /** The provider's event type (`push`, `invoice.paid`). */
  type?: string;
  /** The signature verdict's status. */
  verdict?: VerdictStatus;
}

/** A filter, or a predicate over events. */
export type EventMatch = EventFilter | ((event: ReceivedEvent) => boolean);

/** Options of `waitFor`. */
export interface WaitForOptions {
  /**
   * Longest wait, in milliseconds.
   * @default 5000
   */
  timeout?: number;
}

/** Default `waitFor` timeout, in milliseconds. */
export const DEFAULT_WAIT_TIMEOUT_MS = 5000;

const FILTER_FIELDS: readonly string[] = ["endpoint", "method", "path", "provider", "type", "verdict"];
const VERDICTS: readonly string[] = VERDICT_NAMES;

/**
 * What is wrong with `match` as a `waitFor` filter, or `undefined` when nothing is: a field `waitFor` does
 * not know would otherwise be ignored, and the wait would take the first event of any kind.
 */
export function filterProblem(match: unknown): string | undefined {
  if (typeof match === "function") return undefined;
  if (typeof match !== "object" || match === null || Array.isArray(match) || match instanceof RegExp) {
    return `waitFor takes a filter object ({ endpoint, method, path, provider, type, verdict }) or a ` +
      `predicate (event) => boolean, got ${match instanceof RegExp ? String(match) : JSON.stringify(match)}` +
      (typeof match === "string" ? `: for a path, write { path: ${JSON.stringify(match)} }` : "");
  }
  const known = `(known: ${FILTER_FIELDS.join(", ")})`;
  for (const [key, value] of Object.entries(match)) {
    if (!FILTER_FIELDS.includes(key)) {
      return `waitFor's filter has no field ${JSON.stringify(key)} ${known}; ` +
        "for anything else pass a predicate: (event) => boolean";
    }
    if (value === undefined) continue;
    if (
      key === "path" ? typeof value !== "string" && !(value instanceof RegExp) : typeof value !== "string"
    ) {
      return `waitFor's filter field ${key} must be a string${key === "path" ? " or a RegExp" : ""}, got ${
        JSON.stringify(value)
      }`;
    }
    if (key === "verdict" && !VERDICTS.includes(value)) {
      return `waitFor's filter field verdict must be one of ${VERDICTS.join(", ")}, got ${
        JSON.stringify(value)
      }`;
    }
  }
  return undefined;
}

/** Whether `event` matches `match`. */
export function matches(match: EventMatch, event: ReceivedEvent): boolean {
  if (typeof match === "function") return match(event);
  if (match.endpoint !== undefined && event.endpoint !== match.endpoint) return false;
  if (match.method !== undefined && event.method !== match.method.toUpperCase()) return false;
  if (typeof match.path === "string" && event.path !== match.path) return false;
  if (match.path instanceof RegExp && !match.path.test(event.path)) return false;
  if (match.provider !== undefined && event.provider !== match.provider) return false;
  if (match.type !== undefined && event.type !== match.type) return false;
  if (match.verdict !== undefined && event.verdict?.status !== match.verdict) return false;
  return true;
}

/** `{ method: "POST", path: "/orders" }`, or `the predicate` for a function. */
export function describeMatch(match: EventMatch): string {
  if (typeof match === "function") return `the predicate ${match.name || "(anonymous)"}`;
  const parts = Object.entries(match).filter(([, v]) => v !== undefined).map(([k, v]) =>
    `${k}: ${v instanceof RegExp ? String(v) : JSON.stringify(v)}`
  );
  return parts.length === 0 ? "{} (any event)" : `{ ${parts.join(", ")} }`;
}

const LISTED = 20;

function list<T>(items: readonly T[], line: (item: T) => string): string {
  const shown = items.slice(-LISTED).map((i) => `\n  - ${line(i)}`).join("");
  const more = items.length > LISTED ? `\n  (and ${items.length - LISTED} earlier)` : "";
  return more + shown;
}

function refusal(o: RequestOutcome): string {
  const why = o.status === 404
    ? "no endpoint has this path"
    : o.status === 405
    ? `method not allowed; the path accepts ${o.allow?.join(", ") ?? "other methods"}`
    : o.reason ?? "";
  return `${o.method} ${o.path} → ${o.status}${why ? ` (${why})` : ""} at ${o.time.toISOString()}`;
}

/** What arrived so far: the lines of a timed-out wait's message. */
export function arrivals(
  url: string,
  events: readonly ReceivedEvent[],
  refused: readonly RequestOutcome[],
): string {
  if (events.length === 0 && refused.length === 0) {
    return `Nothing arrived at ${url} (is the app sending to this URL?).`;
  }
  let text = events.length === 0
    ? "No event was received."
    : `Received ${events.length} event${events.length === 1 ? "" : "s"}:${list(events, describeEvent)}`;
  if (refused.length > 0) {
    text += `\nRefused ${refused.length} request${refused.length === 1 ? "" : "s"}:${list(refused, refusal)}`;
  }
  return text;
}

interface Pending {
  match: EventMatch;
  resolve(event: ReceivedEvent): void;
  reject(error: Error): void;
}

/** The pending waits of one receiver. */
export interface Waits {
  /** A wait for the first event matching `match` among `seen`, or the next ones offered. */
  wait(match: EventMatch, options: WaitForOptions, seen: readonly ReceivedEvent[]): Promise<ReceivedEvent>;
  /** Settles the waits `event` matches. */
  offer(event: ReceivedEvent): void;
  /** Rejects every pending wait with `message` and clears its timer. */
  closeAll(message: (match: EventMatch) => string): void;
}

/** The pending waits; `timedOut` writes the message of a wait that timed out. */
export function createWaits(timedOut: (match: EventMatch, timeoutMs: number) => string): Waits {
  const pending = new Set<Pending>();
  return {
    wait(match, options, seen) {
      const timeout = options.timeout ?? DEFAULT_WAIT_TIMEOUT_MS;
      if (!Number.isFinite(timeout) || timeout < 0) {
        return Promise.reject(
          new RangeError(`waitFor's timeout must be a number of milliseconds >= 0, got ${timeout}`),
        );
      }
      for (const event of seen) {
        try {
          if (matches(match, event)) return Promise.resolve(event);
        } catch (error) {
          return Promise.reject(error);
        }
      }
      let entry: Pending;
      const promise = new Promise<ReceivedEvent>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(entry);
          reject(new Error(timedOut(match, timeout)));
        }, timeout);
        entry = {
          match,
          resolve(event) {
            clearTimeout(timer);
            pending.delete(entry);
            resolve(event);
          },
          reject(error) {
            clearTimeout(timer);
            pending.delete(entry);
            reject(error);
          },
        };
        pending.add(entry);
      });
      // A test that fails before awaiting this wait must not also get an
      // "uncaught rejection" when close() rejects it: mark it handled. An
      // `await` on it still throws.
      promise.catch(() => {});
      return promise;
    },
    offer(event) {
      for (const entry of [...pending]) {
        let hit: boolean;
        try {
          hit = matches(entry.match, event);
        } catch (error) {
          entry.reject(error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        if (hit) entry.resolve(event);
      }
    },
    closeAll(message) {
      for (const entry of [...pending]) entry.reject(new Error(message(entry.match)));
    },
  };
}
