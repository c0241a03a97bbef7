/**
 * An endpoint's `response`: what hooktap answers instead of its plain 200,
 * either fixed (`{ status, headers, body, delayMs }`) or a function of the
 * captured event returning that (or a Promise of it), for "fail the first
 * two deliveries, then succeed" retry tests. Pure.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import { checkKeys, isRecord, type Issues, show } from "./_check.ts";

/** A response as written in the config. */
export interface ResponseConfig {
  /** HTTP status. @default 200 */
  status?: number;
  /** Headers, as an object or `[name, value]` pairs. */
  headers?: Record<string, string> | readonly [string, string][];
  /** Body: a string as is, anything else as JSON. @default "" */
  body?: unknown;
  /** Wait this long before answering, in milliseconds (at most 120000). @default 0 */
  delayMs?: number;
}

/**
 * A response function: gets the captured event (with provider, type and verdict) and returns the answer, as
 * a {@linkcode ResponseConfig} or a `Response` (its body read as text), or a Promise of either.
 */
export type ResponseFunction = (
  event: CapturedEvent,
) => ResponseConfig | Response | Promise<ResponseConfig | Response>;

/** A response, resolved. */
export interface ResolvedResponse {
  /** HTTP status. */
  status: number;
  /** Headers, in order. */
  headers: [string, string][];
  /** Body text. */
  body: string;
  /** Delay before answering, in milliseconds. */
  delayMs: number;
}

/** Fields of a `response` object. */
export const RESPONSE_FIELDS: readonly string[] = ["status", "headers", "body", "delayMs"];

/** The largest `delayMs`. */
export const MAX_DELAY_MS = 120_000;

/** Checks a response object; the resolved response, or `undefined` with `issues` filled. */
export function resolveResponse(value: unknown, at: string, issues: Issues): ResolvedResponse | undefined {
  if (value instanceof Response) {
    // Its fields are getters, not own keys: it would pass as an empty object and answer a plain 200.
    issues.push(
      `${at} is a Response object: it can be read only once, and hooktap answers every request with it. ` +
        `Write { status, headers, body, delayMs }, or a function that returns a new Response each time`,
    );
    return undefined;
  }
  if (!isRecord(value)) {
    issues.push(
      `${at} must be an object { status, headers, body, delayMs } or a function, got ${show(value)}`,
    );
    return undefined;
  }
  const before = issues.length;
  checkKeys(value, RESPONSE_FIELDS, at, "a response", issues);
  const status = value.status ?? 200;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 200 || status > 599) {
    issues.push(`${at}.status must be an HTTP status from 200 to 599, got ${show(status)}`);
  }
  const headers: [string, string][] = [];
  const raw = value.headers ?? {};
  const pairs = Array.isArray(raw) ? raw : isRecord(raw) ? Object.entries(raw) : undefined;
  if (pairs === undefined) {
    issues.push(`${at}.headers must be an object { "name": "value" }, got ${show(raw)}`);
  }
  for (const pair of pairs ?? []) {
    const [k, v] = Array.isArray(pair) ? pair : [undefined, undefined];
    if (
      typeof k !== "string" || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(k) || typeof v !== "string" ||
      /[\r\n]/.test(v)
    ) {
      issues.push(
        `${at}.headers has a bad header ${show(pair)}: names are tokens, values strings without newlines`,
      );
    } else headers.push([k, v]);
  }
  let body = "";
  if (typeof value.body === "string") body = value.body;
  else if (value.body !== undefined) {
    try {
      body = JSON.stringify(value.body) ?? "";
    } catch {
      issues.push(`${at}.body must be a string or JSON-serializable, got ${show(value.body)}`);
    }
    if (!headers.some(([k]) => k.toLowerCase() === "content-type")) {
      headers.push(["content-type", "application/json"]);
    }
  }
  const delayMs = value.delayMs ?? 0;
  if (typeof delayMs !== "number" || !Number.isFinite(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
    issues.push(
      `${at}.delayMs must be a number of milliseconds from 0 to ${MAX_DELAY_MS}, got ${show(delayMs)}`,
    );
  }
  if (issues.length > before) return undefined;
  return { status: status as number, headers, body, delayMs: delayMs as number };
}

/** Checks an endpoint's `response` field: a fixed response or a function. */
export function checkResponse(
  value: unknown,
  at: string,
  issues: Issues,
): ResolvedResponse | ResponseFunction | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "function") return value as ResponseFunction;
  return resolveResponse(value, at, issues);
}

/**
 * Marks a response function that runs the config's code in its worker (./code_worker.ts): the event it is
 * given is cloned on the way there, so the receiver need not clone it first.
 */
export const RUNS_IN_WORKER: unique symbol = Symbol("hooktap.runsInWorker");

/** A response function's answer hooktap could not get (not a throw of the function): its message says why. */
export class ResponseFunctionError extends Error {
  /** @param message what went wrong, said as the 500's body. */
  constructor(message: string) {
    super(message);
    this.name = "ResponseFunctionError";
  }
}
