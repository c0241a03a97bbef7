/**
 * The `fixture` export format: events as stored (JSON Lines, one record a
 * line), with the values of signature headers masked so that no secret's
 * work is committed with a test. `replayEvent` re-creates signatures with
 * the test's own secret. Pure: no I/O.
 * @module
 */
import { type CapturedEvent, eventLine } from "../event/record.ts";
import { secretHeaderNames } from "../providers/secret_headers.ts";
import type { ExportFormat } from "./format.ts";

/** Signature headers of senders hooktap has no folder for (src/providers/ lists its own). */
const OTHER_SENDERS: readonly string[] = [
  "x-line-signature",
  "x-square-hmacsha256-signature",
  "x-square-signature",
  "paypal-transmission-sig",
  "x-hubspot-signature",
  "x-hubspot-signature-v3",
  "x-gitlab-token",
  "x-linear-signature",
  "x-mailgun-signature",
  "typeform-signature",
  "x-hook-signature",
  "x-signature",
];

/**
 * Headers that carry a webhook signature or secret token (any case): those of
 * every provider hooktap knows (`secretHeaderNames()`) and of other common
 * senders. Their values are replaced by {@linkcode MASKED_SIGNATURE} in a fixture.
 */
export const SIGNATURE_HEADER_NAMES: readonly string[] = [
  ...new Set([...secretHeaderNames(), ...OTHER_SENDERS]),
];

/** What a masked signature header holds. */
export const MASKED_SIGNATURE = "hooktap-masked";

/** The record with every signature header's value masked (a copy; `names` any case). */
export function maskSignatures(
  event: CapturedEvent,
  names: readonly string[] = SIGNATURE_HEADER_NAMES,
): CapturedEvent {
  const lower = new Set(names.map((n) => n.toLowerCase()));
  return {
    ...event,
    headers: event.headers.map((
      [n, v],
    ): [string, string] => [n, lower.has(n.toLowerCase()) ? MASKED_SIGNATURE : v]),
  };
}

/**
 * Formats events as fixture lines: each record as stored, signature
 * headers masked, one JSON line each (ending in `\n`). `loadEvents` reads them back.
 *
 * @example
 * ```ts
 * import { toFixtureLines } from "@hooktap/hooktap/testing";
 * const text = toFixtureLines([{
 *   v: 1, id: "evt_20260101_01J0000000000000000000000", endpoint: "github",
 *   receivedAt: "2026-01-01T00:00:00.000Z", method: "POST", path: "/github", query: "",
 *   headers: [["X-Hub-Signature-256", "sha256=…"], ["X-GitHub-Event", "push"]],
 *   body: "{}", bodyEncoding: "utf8", bodySize: 2, remoteAddr: "127.0.0.1",
 * }]);
 * console.log(text.includes("hooktap-masked")); // true
 * ```
 */
export function toFixtureLines(
  events: Iterable<CapturedEvent>,
  names: readonly string[] = SIGNATURE_HEADER_NAMES,
): string {
  let text = "";
  for (const event of events) text += eventLine(maskSignatures(event, names));
  return text;
}

/** `hooktap export --format fixture`: files to commit as test fixtures (`loadEvents` reads them back). */
export const FIXTURE: ExportFormat = {
  name: "fixture",
  description: "the stored records with signature headers masked, for tests (loadEvents, replayEvent)",
  create: () => ({ event: (event) => toFixtureLines([event]) }),
};
