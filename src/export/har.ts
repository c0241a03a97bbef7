/**
 * `--format har`: an HTTP Archive 1.2 document (what browser devtools and
 * HAR tools import), one entry per event. Entries are written as they come,
 * so an export of any size holds one event in memory at a time. A body that
 * is not UTF-8 text is in `postData.text` as base64 with
 * `postData.encoding: "base64"` (as HAR's `content.encoding` does).
 * @module
 */
import { type CapturedEvent, headerValue } from "../event/record.ts";
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

/** The HAR entry of one event. */
export function harEntry(event: CapturedEvent): Record<string, unknown> {
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
  const answered = event.response;
  return {
    startedDateTime: event.receivedAt,
    time: answered?.delayMs ?? 0,
    request,
    response: {
      status: answered?.status ?? 200,
      statusText: "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: _pairs(answered?.headers ?? [["content-type", "application/json"]]),
      content: {
        size: answered?.body === undefined ? 0 : new TextEncoder().encode(answered.body).length,
        mimeType: headerValue(answered?.headers ?? [], "content-type") ?? "application/json",
        ...(answered?.body !== undefined ? { text: answered.body } : {}),
      },
      redirectURL: "",
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: answered?.delayMs ?? 0, receive: 0 },
    comment: `hooktap ${event.id} (endpoint ${event.endpoint})`,
  };
}

/** HAR 1.2. */
export const HAR: ExportFormat = {
  name: "har",
  description: "HTTP Archive 1.2, for browser devtools and HAR tools",
  create: (options) => {
    let first = true;
    return {
      head: () =>
        `{"log":{"version":"1.2","creator":{"name":"hooktap","version":${
          JSON.stringify(options.version)
        }},"pages":[],"entries":[\n`,
      event: (event) => {
        const text = (first ? "" : ",\n") + JSON.stringify(harEntry(event));
        first = false;
        return text;
      },
      tail: () => "\n]}}\n",
    };
  },
};
