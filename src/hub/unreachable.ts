/**
 * What to say when the hub cannot be reached: the cause fetch hides behind "fetch failed", and the fix.
 * @module
 */
import { invokedAs } from "../text/command_line.ts";
import { safeLine } from "../text/sanitize.ts";

/** The reason under a failed fetch (`fetch failed` carries it in `cause`), in a few words. */
export function fetchReason(error: unknown): string {
  const e = error as { message?: string; cause?: { message?: string } } | null;
  const text = `${e?.message ?? String(error)} ${e?.cause?.message ?? ""}`;
  if (/connection refused|ECONNREFUSED/i.test(text)) return "nothing listens there: connection refused";
  if (/dns error|failed to lookup|ENOTFOUND|EAI_AGAIN|Name or service not known/i.test(text)) {
    return "its host name does not resolve";
  }
  if (
    /error reading a body|connection closed before message completed|connection reset|broken pipe/i.test(text)
  ) {
    return "the connection was cut before the hub's answer was whole (the hub stopped or restarted, or a proxy " +
      "closed it)";
  }
  if (/certificate|tls|ssl|handshake/i.test(text)) {
    return `TLS failed (${safeLine(text.trim()).slice(0, 300)})`;
  }
  const cause = e?.cause?.message ?? e?.message ?? String(error);
  return safeLine(cause).slice(0, 300);
}

/** `Cannot reach the hub at <base>: <why>. Check ...`: the message of a hub command that could not connect. */
export function unreachable(base: string, error: unknown): string {
  return `Cannot reach the hub at ${safeLine(base)}: ${
    fetchReason(error)
  }. Check the URL, and that the hub ` +
    `runs (\`${invokedAs()} hub serve\`, or your deployment).`;
}
