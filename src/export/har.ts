/**
 * `--format har`: an HTTP Archive 1.2 document (what browser devtools and
 * HAR tools import), one entry per event. Entries are written as they come,
 * so an export of any size holds one event in memory at a time. A body that
 * is not UTF-8 text is in `postData.text` as base64 with
 * `postData.encoding: "base64"` (as HAR's `content.encoding` does).
 * @module
 */
import { type CapturedEvent, headerValue } from "../event/record.ts";
import { type DeliveryRecord, RECORD_BODY_BYTES } from "../event/delivery.ts";
import {
  badGatewayBody,
  busyRelayText,
  noAnswerRelayText,
  overRelayText,
  RELAY_BODY_MAX,
  RELAY_BYTES_IN_FLIGHT,
  relayRefusal,
  stoppedRelayText,
} from "../send/answer_note.ts";
import type { ExportFormat } from "./format.ts";
import { originalUrl } from "./_url.ts";
import { headerText } from "../text/header_text.ts";

function _pairs(list: Iterable<[string, string]>): { name: string; value: string }[] {
  return [...list].map(([name, value]) => ({ name, value }));
}

/** Request headers as the sender meant them: bytes that are UTF-8 decoded, as `inspect` shows them. */
function _headers(list: Iterable<[string, string]>): { name: string; value: string }[] {
  return [...list].map(([name, value]) => ({ name, value: headerText(value) }));
}

/**
 * The HAR entry of one event: its request, and the answer its sender got (`relayed`: the relay attempt whose
 * answer hooktap passed on; else hooktap's own answer).
 */
export function harEntry(event: CapturedEvent, relayed?: DeliveryRecord): Record<string, unknown> {
  const request: Record<string, unknown> = {
    method: event.method,
    url: originalUrl(event),
    httpVersion: "HTTP/1.1",
    cookies: [],
    headers: _headers(event.headers),
    queryString: _pairs(new URLSearchParams(event.query)),
    headersSize: -1,
    bodySize: event.bodySize,
  };
  if (event.bodySize > 0) {
    request.postData = {
      mimeType: headerValue(event.headers, "content-type") ?? "application/octet-stream",
      text: event.body,
      ...(event.bodyEncoding === "base64" ? { encoding: "base64" } : {}),
    };
  }
  const { response, wait } = relayed !== undefined ? _relayAnswer(event, relayed) : _ownAnswer(event);
  return {
    startedDateTime: event.receivedAt,
    time: wait,
    request,
    response,
    cache: {},
    timings: { send: 0, wait, receive: 0 },
    comment: `hooktap ${event.id} (endpoint ${event.endpoint})`,
  };
}

const encoder = new TextEncoder();

/** What hooktap answered the sender itself: the endpoint's response, a challenge's, or the default `200`. */
function _ownAnswer(event: CapturedEvent): { response: Record<string, unknown>; wait: number } {
  const answered = event.response;
  // The default answer (src/receiver/handler.ts): `{"ok":true,"id":…}` with the id in a header.
  const body = answered === undefined ? `{"ok":true,"id":"${event.id}"}` : answered.body;
  const headers: [string, string][] = answered === undefined
    ? [["Content-Type", "application/json"], ["x-hooktap-event-id", event.id]]
    : answered.headers ?? [];
  return {
    response: {
      status: answered?.status ?? 200,
      statusText: "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: _pairs(headers),
      content: {
        size: body === undefined ? 0 : encoder.encode(body).length,
        mimeType: headerValue(headers, "content-type") ?? "application/json",
        ...(body !== undefined && event.method !== "HEAD" ? { text: body } : {}),
      },
      redirectURL: "",
      headersSize: -1,
      bodySize: -1,
    },
    wait: answered?.delayMs ?? 0,
  };
}

/**
 * What a relayed event's sender got: the app's answer as its relay attempt recorded it (the first 64 KiB of
 * the body, decoded when it came compressed), or, when the app gave none or hooktap did not pass it on,
 * hooktap's 502 or 503 saying why.
 */
function _relayAnswer(
  event: CapturedEvent,
  r: DeliveryRecord,
): { response: Record<string, unknown>; wait: number } {
  if (r.senderLeft) {
    // The sender hung up before the answer: it got none (HAR's status 0, as a browser records an aborted request).
    return {
      response: {
        status: 0,
        statusText: "",
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: [],
        content: { size: 0, mimeType: "x-unknown" },
        redirectURL: "",
        headersSize: -1,
        bodySize: -1,
        comment: `the sender hung up before the answer came (the app answered ${r.status ?? "nothing"})`,
      },
      wait: r.durationMs,
    };
  }
  const refusal = relayRefusal(r);
  if (refusal !== undefined && refusal !== "not an HTTP status") {
    // The app gave no answer, or one hooktap did not pass on: its sender got hooktap's 502 or 503
    // (../send/relay_answer.ts).
    const why = refusal === "no answer"
      ? noAnswerRelayText(r.url, r.error ?? "no answer")
      : refusal === "busy"
      ? busyRelayText(r.url, r.status!)
      : refusal === "stopped"
      ? stoppedRelayText(r.url)
      : overRelayText(r.url, r.status!, r.bodySize ?? 0);
    const text = badGatewayBody(why, event.id);
    const headers: [string, string][] = [
      ["content-type", "text/plain; charset=utf-8"],
      ["x-hooktap-event-id", event.id],
    ];
    if (refusal === "busy") headers.push(["retry-after", "5"]);
    return {
      response: {
        status: refusal === "busy" ? 503 : 502,
        statusText: refusal === "busy" ? "Service Unavailable" : "Bad Gateway",
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: _pairs(headers),
        content: { size: encoder.encode(text).length, mimeType: "text/plain; charset=utf-8", text },
        redirectURL: "",
        headersSize: -1,
        bodySize: -1,
        comment: refusal === "over max"
          ? `hooktap's answer: the app's ${r.status} had a body over ${RELAY_BODY_MAX} bytes`
          : refusal === "busy"
          ? `hooktap's answer: the app's ${r.status} came while the relayed answers in memory were at ${RELAY_BYTES_IN_FLIGHT} bytes`
          : "hooktap's answer: the app gave none",
      },
      wait: r.durationMs,
    };
  }
  const headers = r.headers ?? [];
  const notes: string[] = [];
  if (r.decodedFrom !== undefined) notes.push(`decoded from ${r.decodedFrom}`);
  if (r.truncated) notes.push(`hooktap kept the first ${RECORD_BODY_BYTES} bytes`);
  const bodyless = event.method === "HEAD" || r.status === 204 || r.status === 304;
  // A decoded whole body: its decoded size, and how much the coding saved (HAR's `compression`).
  const decodedSize = r.decodedFrom !== undefined && !r.truncated && r.bodyEncoding === "utf8"
    ? encoder.encode(r.body ?? "").length
    : undefined;
  const content: Record<string, unknown> = {
    size: decodedSize ?? r.bodySize ?? 0,
    ...(decodedSize !== undefined && decodedSize > (r.bodySize ?? 0)
      ? { compression: decodedSize - (r.bodySize ?? 0) }
      : {}),
    mimeType: headerValue(headers, "content-type") ?? "",
  };
  if (!bodyless && r.body !== undefined && r.body !== "") {
    content.text = r.body;
    if (r.bodyEncoding === "base64") content.encoding = "base64";
  }
  if (notes.length > 0) content.comment = notes.join("; ");
  return {
    response: {
      status: r.status === undefined || r.status < 200 || r.status > 599 ? 502 : r.status,
      statusText: r.statusText ?? "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: _pairs([...headers, ["x-hooktap-event-id", event.id]]),
      content,
      redirectURL: headerValue(headers, "location") ?? "",
      headersSize: -1,
      bodySize: r.bodySize ?? -1,
      comment: `the app's answer, relayed by hooktap (${r.url})`,
    },
    wait: r.durationMs,
  };
}

/** HAR 1.2. */
export const HAR: ExportFormat = {
  name: "har",
  description: "HTTP Archive 1.2, for browser devtools and HAR tools",
  answers: true,
  create: (options) => {
    let first = true;
    return {
      head: () =>
        `{"log":{"version":"1.2","creator":{"name":"hooktap","version":${
          JSON.stringify(options.version)
        }},"pages":[],"entries":[\n`,
      event: (event, _line, relayed) => {
        const text = (first ? "" : ",\n") + JSON.stringify(harEntry(event, relayed));
        first = false;
        return text;
      },
      tail: () => "\n]}}\n",
    };
  },
};
