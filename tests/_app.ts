/**
 * A stand-in for the user's app in forwarding tests: a raw TCP HTTP/1.1
 * server on 127.0.0.1 that records each request's exact bytes (header
 * names in their case and order, repeats) and answers what the test says.
 * @module
 */

/** One request as it arrived. */
export interface AppRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** What the app answers: status, headers, body, and a delay before answering. */
export interface AppAnswer {
  status: number;
  headers?: [string, string][];
  body?: string;
  delayMs?: number;
}

/** A free loopback port (bound then released). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * A free port outside the kernel's ephemeral range (32768–60999 on Linux), for a port that must stay unbound
 * for a long time (an app that is down for minutes): a port from {@linkcode freePort} can be handed to another
 * test's `port: 0` listener meanwhile, and the "down" app then answers.
 */
export function unusedPort(): number {
  for (let tries = 0; tries < 100; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch { /* taken: another */ }
  }
  throw new Error("no free port in 20000–32000");
}

const dec = new TextDecoder();
const enc = new TextEncoder();

function indexOf(buf: Uint8Array, seq: number[], from = 0): number {
  outer: for (let i = from; i <= buf.length - seq.length; i++) {
    for (let j = 0; j < seq.length; j++) if (buf[i + j] !== seq[j]) continue outer;
    return i;
  }
  return -1;
}

/** A running fake app. */
export interface FakeApp extends AsyncDisposable {
  port: number;
  requests: AppRequest[];
  close(): Promise<void>;
}

/** Starts the fake app on `port` (0: any); `answer` decides each answer. */
export function startApp(port: number, answer: (req: AppRequest, n: number) => AppAnswer): FakeApp {
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const requests: AppRequest[] = [];
  const conns = new Set<Deno.Conn>();
  const serveConn = async (conn: Deno.Conn) => {
    conns.add(conn);
    let buf = new Uint8Array(0);
    const chunk = new Uint8Array(65536);
    try {
      while (true) {
        let head = indexOf(buf, [13, 10, 13, 10]);
        while (head === -1) {
          const n = await conn.read(chunk);
          if (n === null) return;
          const next = new Uint8Array(buf.length + n);
          next.set(buf);
          next.set(chunk.subarray(0, n), buf.length);
          buf = next;
          head = indexOf(buf, [13, 10, 13, 10]);
        }
        const lines = dec.decode(buf.subarray(0, head)).split("\r\n");
        const [method, target] = lines[0]!.split(" ") as [string, string];
        const headers = lines.slice(1).map((l): [string, string] => {
          const c = l.indexOf(":");
          return [l.slice(0, c), l.slice(c + 1).trim()];
        });
        const length = Number(headers.find(([n]) => n.toLowerCase() === "content-length")?.[1] ?? 0);
        while (buf.length < head + 4 + length) {
          const n = await conn.read(chunk);
          if (n === null) return;
          const next = new Uint8Array(buf.length + n);
          next.set(buf);
          next.set(chunk.subarray(0, n), buf.length);
          buf = next;
        }
        const req = { method, target, headers, body: buf.slice(head + 4, head + 4 + length) };
        buf = buf.slice(head + 4 + length);
        requests.push(req);
        const a = answer(req, requests.length);
        if (a.delayMs) await new Promise((r) => setTimeout(r, a.delayMs));
        const body = enc.encode(a.body ?? "");
        const hs = [...(a.headers ?? []), ["Content-Length", String(body.length)]];
        const text = `HTTP/1.1 ${a.status} X\r\n${hs.map(([n, v]) => `${n}: ${v}`).join("\r\n")}\r\n\r\n`;
        const out = new Uint8Array([...enc.encode(text), ...body]);
        let off = 0;
        while (off < out.length) off += await conn.write(out.subarray(off));
      }
    } catch {
      /* connection closed */
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) void serveConn(conn);
    } catch { /* closed */ }
  })();
  const close = async () => {
    try {
      listener.close();
    } catch { /* closed */ }
    for (const c of conns) {
      try {
        c.close();
      } catch { /* closed */ }
    }
    await accepting;
  };
  return {
    port: (listener.addr as Deno.NetAddr).port,
    requests,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Waits until `check()` is true, polling; throws with `what` after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 15_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
