/**
 * What a delivery record keeps of the app's answer body when it is not the
 * bytes as sent (decoded from a `Content-Encoding`, cut at 64 KiB), in one
 * phrase that `inspect` and the inspector page both show. Pure: the page
 * bundles it.
 * @module
 */
import { type DeliveryRecord, RECORD_BODY_BYTES } from "../event/delivery.ts";
import { formatBytes } from "../text/format.ts";

/** The phrase, or `undefined` when the record keeps the whole body as sent. Not escaped: the caller does. */
export function answerNote(
  record: Pick<DeliveryRecord, "bodySize" | "truncated" | "decodedFrom">,
): string | undefined {
  const sent = formatBytes(record.bodySize ?? 0);
  const kept = formatBytes(RECORD_BODY_BYTES);
  if (record.decodedFrom !== undefined) {
    return record.truncated
      ? `(decoded from ${record.decodedFrom}, ${sent} as sent; only the start is kept, up to ${kept} decoded)`
      : `(decoded from ${record.decodedFrom}, ${sent} as sent)`;
  }
  return record.truncated ? `(cut: the first ${kept} of ${sent} are kept)` : undefined;
}
