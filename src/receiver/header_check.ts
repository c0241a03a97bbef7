/**
 * `dev`'s start-up check that headers are stored as they arrive. The order,
 * case and repeats of a request's headers come from the runtime's raw header
 * list (src/receiver/headers.ts reads a runtime-internal field); a runtime
 * that drops or renames it would silently leave only the web `Headers` view
 * (names lower-cased, repeats merged). So `dev` sends one probe with known
 * headers through its real listening stack and compares what the receiver
 * read with what was sent.
 * @module
 */
import { ServeError } from "../errors.ts";
import { PROBE_HEADER, PROBE_PATH, type ProbeAnswer } from "./probe.ts";

/** The headers the probe sends after its own: two repeats of one name, in two cases, another name between. */
export const CHECK_HEADERS: readonly [string, string][] = [
  ["X-Hooktap-Check", "first"],
  ["x-hooktap-order", "between"],
  ["x-HOOKTAP-check", "second"],
];

function _connectHost(hostname: string): string {
  if (hostname === "0.0.0.0" || hostname === "") return "127.0.0.1";
  if (hostname === "::" || hostname === "[::]") return "::1";
  return hostname.replace(/^\[|\]$/g, "");
}

/** The JSON body of a whole HTTP/1.1 answer (`Content-Length` or one chunk). */
function _body(answer: string): unknown {
  const start = answer.indexOf("{", answer.indexOf("\r\n\r\n"));
  const end = answer.lastIndexOf("}");
  if (start < 0 || end < start) return undefined;
  try {
    return JSON.parse(answer.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/** Sends the probe to `hostname:port` and returns the headers the receiver read, or why it could not. */
export async function probeHeaders(hostname: string, port: number): Promise<[string, string][] | string> {
  let conn: Deno.TcpConn;
  try {
    conn = await Deno.connect({ hostname: _connectHost(hostname), port });
  } catch (error) {
    return `cannot connect to its own port: ${error instanceof Error ? error.message : String(error)}`;
  }
  const timer = setTimeout(() => conn.close(), 5000);
  try {
    const head = [
      `GET ${PROBE_PATH} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      `${PROBE_HEADER}: headers`,
      ...CHECK_HEADERS.map(([name, value]) => `${name}: ${value}`),
      "Connection: close",
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(head));
    let answer = "";
    const decoder = new TextDecoder();
    for await (const chunk of conn.readable) answer += decoder.decode(chunk, { stream: true });
    const body = _body(answer) as ProbeAnswer | undefined;
    if (!Array.isArray(body?.headers)) {
      return `the probe got no header list back (${answer.split("\r\n")[0]})`;
    }
    return body.headers;
  } catch (error) {
    return `the probe failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed by the timer or the peer */ }
  }
}

/** Whether `seen` holds {@linkcode CHECK_HEADERS} exactly, in order, with nothing between them. */
export function keepsRawHeaders(seen: readonly (readonly [string, string])[]): boolean {
  const start = seen.findIndex(([name]) => name === CHECK_HEADERS[0]![0]);
  return start >= 0 &&
    CHECK_HEADERS.every(([name, value], i) =>
      seen[start + i]?.[0] === name && seen[start + i]?.[1] === value
    );
}

/**
 * Checks that the receiver listening on `hostname:port` (with the probe
 * answered, src/receiver/probe.ts) stores headers as they arrive.
 * @throws {ServeError} when it does not, with the reason and the workaround.
 */
export async function checkRawHeaders(
  hostname: string,
  port: number,
  options: { stack: string; runtime?: string },
): Promise<void> {
  const seen = await probeHeaders(hostname, port);
  if (typeof seen === "string") {
    // Without a way to its own port (a narrowed --allow-net) there is nothing to compare; the probe's
    // failure says nothing about the header list.
    if (seen.startsWith("cannot connect")) return;
    throw new ServeError(_refusal(options, seen));
  }
  if (!keepsRawHeaders(seen)) {
    const got = seen.filter(([name]) => /^x-hooktap-(check|order)$/i.test(name)).map(([n, v]) =>
      `${n}: ${v}`
    );
    throw new ServeError(
      _refusal(options, `sent ${_show(CHECK_HEADERS)}, the receiver read ${got.join(" | ")}`),
    );
  }
}

function _show(headers: readonly (readonly [string, string])[]): string {
  return headers.map(([n, v]) => `${n}: ${v}`).join(" | ");
}

function _refusal(options: { stack: string; runtime?: string }, detail: string): string {
  const runtime = options.runtime ?? `Deno ${Deno.version.deno}`;
  const workaround = options.stack === "node"
    ? "use a Deno version hooktap is tested with (2.9)"
    : "start with HOOKTAP_STACK=node (and --allow-env=HOOKTAP_STACK), which receives through node:http and " +
      "keeps the raw list, or use a Deno version hooktap is tested with (2.9)";
  return `hooktap dev will not start: on ${runtime} the ${options.stack} server no longer gives hooktap a ` +
    `request's headers as they arrived (${detail}), so events would be stored with header names lower-cased ` +
    `and repeats merged. Fix: ${workaround}.`;
}
