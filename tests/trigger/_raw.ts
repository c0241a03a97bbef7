/**
 * A raw HTTP/1.1 server on a loopback port that keeps each request's exact
 * header lines (case, order) and body, and answers with a status chosen
 * per request. For observing what `trigger` puts on the wire.
 * @module
 */

/** One request as it arrived. */
export interface RawRequest {
  method: string;
  target: string;
  /** Header lines as sent, in order. */
  headers: [string, string][];
  body: Uint8Array;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** Starts the server; `answer` picks each status (default 200). */
export function startRawServer(answer: (r: RawRequest) => number = () => 200): {
  url: string;
  requests: RawRequest[];
} & AsyncDisposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: RawRequest[] = [];
  const conns = new Set<Deno.Conn>();
  const serve = async (conn: Deno.Conn) => {
    conns.add(conn);
    let buf: Uint8Array = new Uint8Array(0);
    const chunk = new Uint8Array(65536);
    try {
      while (true) {
        let end = -1;
        while ((end = _find(buf)) < 0) {
          const n = await conn.read(chunk);
          if (n === null) return;
          buf = _concat(buf, chunk.subarray(0, n));
        }
        const head = new TextDecoder().decode(buf.subarray(0, end)).split("\r\n");
        const [method, target] = head[0]!.split(" ") as [string, string];
        const headers = head.slice(1).map((l) =>
          [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()] as [string, string]
        );
        const length = Number(headers.find(([k]) => k.toLowerCase() === "content-length")?.[1] ?? 0);
        while (buf.length < end + 4 + length) {
          const n = await conn.read(chunk);
          if (n === null) return;
          buf = _concat(buf, chunk.subarray(0, n));
        }
        const request = {
          method,
          target,
          headers,
          body: buf.slice(end + 4, end + 4 + length),
          at: Date.now(),
        };
        buf = buf.slice(end + 4 + length);
        requests.push(request);
        const status = answer(request);
        const text = status < 300 ? "ok" : "signature rejected\nsecond line";
        await conn.write(
          new TextEncoder().encode(`HTTP/1.1 ${status} X\r\nContent-Length: ${text.length}\r\n\r\n${text}`),
        );
      }
    } catch {
      /* closed */
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) void serve(conn);
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    requests,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await accepting;
    },
  };
}

function _find(buf: Uint8Array): number {
  for (let i = 0; i + 3 < buf.length; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

function _concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
