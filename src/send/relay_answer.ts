/**
 * The answer a relayed request's sender gets, made from the one attempt's
 * outcome: the app's status, headers and body, or a `502` saying why not
 * (no answer; an answer hooktap could not pass on whole). Every such `502`
 * names the URL sent to and the stored event.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import type { AttemptOutcome } from "./deliver.ts";
import { isHopHeader } from "./target.ts";
import { badGatewayBody, noAnswerRelayText, overRelayText, RELAY_BODY_MAX } from "./answer_note.ts";

export { RELAY_BODY_MAX };

function badGateway(event: CapturedEvent, text: string): Response {
  return new Response(badGatewayBody(text, event.id), {
    status: 502,
    headers: { "content-type": "text/plain; charset=utf-8", "x-hooktap-event-id": event.id },
  });
}

/** The sender's answer to `event`, relayed once with `outcome`. */
export function relayAnswer(event: CapturedEvent, outcome: AttemptOutcome): Response {
  const response = outcome.response;
  const url = outcome.record.url;
  if (response === undefined) {
    const why = outcome.error?.message ?? "no answer";
    return badGateway(event, noAnswerRelayText(url, why));
  }
  if (response.truncated) {
    // Passing on the first 64 MiB as if whole would tell the sender a lie: say it instead.
    return badGateway(event, overRelayText(url, response.status, response.bodySize));
  }
  const head = event.method === "HEAD";
  const headers = new Headers();
  for (const [name, value] of response.headers) {
    // A HEAD's Content-Length is the size a GET would get: passed on (Deno.serve keeps it on a null body).
    if (isHopHeader(name) || (!head && name.toLowerCase() === "content-length")) continue;
    try {
      headers.append(name, value);
    } catch { /* a header Deno refuses to send back */ }
  }
  headers.set("x-hooktap-event-id", event.id);
  const nullBody = response.status === 204 || response.status === 304 || head;
  return new Response(nullBody ? null : response.body as Uint8Array<ArrayBuffer>, {
    status: response.status < 200 || response.status > 599 ? 502 : response.status,
    statusText: response.statusText,
    headers,
  });
}
