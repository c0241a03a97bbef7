/**
 * Found on a Node developer's day: a sender's `Expect: 100-continue` (curl adds it to bodies over 1 MiB) is
 * forwarded, and Node's HTTP server answers it with `100 Continue` as soon as it reads the request's head.
 * On a kept-alive connection, that interim answer arrived while dev was still writing a large body, and the
 * connection's idle watch took it for bytes nobody asked for and closed the connection under the write: the
 * delivery failed with Deno's "Bad resource ID" (or "EINTR operation canceled"), and was sent again, so the
 * app saw it twice. Through the real CLI, with an app that answers as Node does, over raw loopback sockets.
 * @module
 */
import assert from "node:assert/strict";
import { startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { until } from "../_app.ts";

const MB = 1024 * 1024;
const enc = new TextEncoder();
const dec = new TextDecoder();

/** An app that answers `100 Continue` on the head (when asked), then reads the body slowly, then `200`. */
function nodeLikeApp() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const whole: number[] = [];
  const serve = async (conn: Deno.Conn) => {
    let buf = new Uint8Array(0);
    const chunk = new Uint8Array(64 * 1024);
    const more = async () => {
      const n = await conn.read(chunk);
      if (n === null) throw new Error("closed");
      const next = new Uint8Array(buf.length + n);
      next.set(buf);
      next.set(chunk.subarray(0, n), buf.length);
      buf = next;
    };
    try {
      while (true) {
        let end = -1;
        while ((end = dec.decode(buf).indexOf("\r\n\r\n")) === -1) await more();
        const head = dec.decode(buf.subarray(0, end));
        heads.push(head.split("\r\n")[0]!);
        if (/^expect: *100-continue/im.test(head)) {
          await conn.write(enc.encode("HTTP/1.1 100 Continue\r\n\r\n"));
        }
        const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
        while (buf.length < end + 4 + length) {
          await more();
          await new Promise((r) => setTimeout(r, 1)); // a busy app: the sender's write takes a while
        }
        buf = buf.slice(end + 4 + length);
        whole.push(length);
        await conn.write(
          enc.encode("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"),
        );
      }
    } catch {
      /* closed */
    } finally {
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  void (async () => {
    try {
      for await (const conn of listener) void serve(conn);
    } catch { /* closed */ }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    heads,
    whole,
    [Symbol.dispose]: () => listener.close(),
  };
}

/** Sends `body` to dev with `Expect: 100-continue`, as curl does for a large body; resolves to the status. */
async function sendExpecting(port: number, body: Uint8Array): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(
      `POST /hook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    ));
    let off = 0;
    while (off < body.length) off += await conn.write(body.subarray(off));
    let text = "";
    const chunk = new Uint8Array(4096);
    for (let n = await conn.read(chunk); n !== null; n = await conn.read(chunk)) {
      text += dec.decode(chunk.subarray(0, n));
    }
    const finals = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1])).filter((s) => s >= 200);
    return finals[0] ?? 0;
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

Deno.test("an app's early 100 Continue on a kept-alive connection while dev writes a large body: each event once", async () => {
  await using tmp = await withTmpDir();
  using app = nodeLikeApp();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "hook", path: "/hook", method: "POST", ` +
      `forward: "http://127.0.0.1:${app.port}/hook" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const body = enc.encode(JSON.stringify({ pad: "x".repeat(6 * MB) }));
  for (let i = 1; i <= 3; i++) {
    assert.equal(await sendExpecting(dev.port, body), 200);
    await until(() => app.whole.length >= i, `delivery ${i}\n${dev.stdout()}`, 30_000);
  }
  await new Promise((r) => setTimeout(r, 300)); // a second send of one would come now
  assert.deepEqual(app.whole, [body.length, body.length, body.length], dev.stdout());
  assert.equal(app.heads.length, 3, `the app saw ${app.heads.length} requests\n${dev.stdout()}`);
  assert.doesNotMatch(dev.stdout(), /Bad resource|EINTR|\[---\]/, dev.stdout());
});
