/**
 * What the receiver answers a stored request, decided before the record is
 * appended so that the record says what was answered: a provider's URL
 * challenge, 401 when the endpoint enforces signatures and this one fails,
 * the endpoint's custom `response` (a function of the event is called
 * here, with provider, type and verdict already on it), or `undefined` for
 * the plain 200.
 * @module
 */
import type { ResolvedResponse, ResponseFunction } from "../config/response.ts";
import { resolveResponse, ResponseFunctionError, RUNS_IN_WORKER } from "../config/response.ts";
import type { Endpoint } from "../config/types.ts";
import { readReturnedResponse } from "../config/returned_response.ts";
import type { CapturedEvent, StoredResponse } from "../event/record.ts";
import { type Examination, examineRequest, NO_SETTINGS } from "../providers/examine.ts";
import { createView, type ViewParts } from "../providers/view.ts";

/** Examines a request for its endpoint and puts provider, type and verdict on its record. */
export async function examineFor(
  endpoint: Endpoint,
  parts: ViewParts,
  event: CapturedEvent,
): Promise<Examination> {
  const examined = await examineRequest(createView(parts), endpoint.signing ?? NO_SETTINGS);
  if (examined.provider !== undefined) event.provider = examined.provider;
  if (examined.type !== undefined) event.type = examined.type;
  // An unknown sender on an endpoint without signing settings: no verdict stored (readers show
  // "unsigned"), so plain endpoints keep their records as small as before.
  if (examined.provider !== undefined || endpoint.signing !== undefined) event.verdict = examined.verdict;
  return examined;
}

const REFUSED = new Set(["invalid", "expired", "unsigned"]);

async function _custom(fn: ResponseFunction, event: CapturedEvent): Promise<ResolvedResponse> {
  let value: unknown;
  try {
    // A function of `hooktap dev`'s config runs in the config's worker: the event is cloned on its way there.
    value = await fn(RUNS_IN_WORKER in fn ? event : structuredClone(event));
  } catch (error) {
    if (error instanceof ResponseFunctionError) return _failed(error.message);
    return _failed(
      `the endpoint's response function threw: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (value instanceof Response) {
    // The reader a config's worker runs too (../config/returned_response.ts).
    const read = await readReturnedResponse(value);
    if (!read.ok) return _failed(read.failed);
    value = read.value;
  }
  const issues: string[] = [];
  const resolved = resolveResponse(value ?? {}, "response()", issues);
  return resolved ?? _failed(`the endpoint's response function returned a bad answer: ${issues.join("; ")}`);
}

function _failed(message: string): ResolvedResponse {
  return { status: 500, headers: [["content-type", "text/plain; charset=utf-8"]], body: message, delayMs: 0 };
}

/**
 * Whether {@linkcode planAnswer} can give anything but the plain 200 (a
 * challenge to answer, signatures enforced, a custom response): when not,
 * the receiver skips it and the promise it costs.
 */
export function mayAnswer(endpoint: Endpoint, examined: Examination): boolean {
  return examined.challenge !== undefined || endpoint.signing?.enforce === true ||
    endpoint.response !== undefined;
}

/** The answer to give, or `undefined` for the plain 200; sets `event.response`. */
export async function planAnswer(
  endpoint: Endpoint,
  event: CapturedEvent,
  examined: Examination,
): Promise<StoredResponse | undefined> {
  let answer: StoredResponse | undefined;
  if (examined.challenge !== undefined) {
    answer = { source: "challenge", ...examined.challenge };
  } else if (endpoint.signing?.enforce && REFUSED.has(examined.verdict.status)) {
    const v = examined.verdict;
    answer = {
      status: 401,
      source: "enforce",
      headers: [["content-type", "text/plain; charset=utf-8"]],
      body: `Signature ${v.status}${
        v.reason ? `: ${v.reason}` : ""
      }. (hooktap: this endpoint has enforce: true)`,
    };
  } else if (endpoint.response !== undefined) {
    const r = typeof endpoint.response === "function"
      ? await _custom(endpoint.response, event)
      : endpoint.response;
    answer = { status: r.status, source: "custom", headers: r.headers, body: r.body };
    if (r.delayMs > 0) answer.delayMs = r.delayMs;
  }
  if (answer !== undefined) event.response = answer;
  return answer;
}

/** The `Response` of a planned answer, after its delay. */
export async function sendAnswer(
  answer: StoredResponse,
  id: string,
  signal?: AbortSignal,
): Promise<Response> {
  if (answer.delayMs !== undefined && answer.delayMs > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, answer.delayMs);
      signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
  const headers = new Headers();
  for (const [k, v] of answer.headers ?? []) headers.append(k, v);
  if (!headers.has("content-type") && (answer.body ?? "") !== "") {
    headers.set("content-type", "text/plain; charset=utf-8");
  }
  // A null-body status (204, 205, 304) cannot carry one, not even an empty one: `Response` throws.
  const nullBody = answer.status === 204 || answer.status === 205 || answer.status === 304;
  const response = new Response(nullBody ? null : answer.body ?? "", { status: answer.status, headers });
  response.headers.set("x-hooktap-event-id", id);
  return response;
}
