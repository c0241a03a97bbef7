/**
 * The limit of Deno.serve (2.9) that src/receiver/over_limit.ts works around, in its smallest form: the
 * closing answer closes its connection only while no read of the request's body waits in the runtime. When
 * this fails, Deno has changed: a stalled drain could then be closed, and chunked bodies over the limit
 * drained (docs/dev.md).
 */
import assert from "node:assert/strict";
import { closeAfter, closingAnswer, ConnectionClosedOnPurpose } from "./closing.ts";

/** Sends a request head that declares a body and never sends it; whether the server closed within `ms`. */
async function closedWithin(port: number, ms: number): Promise<{ closed: boolean; answer: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 9000\r\n\r\n"));
  let answer = "";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, ms);
  const buf = new Uint8Array(4096);
  try {
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
      answer += new TextDecoder().decode(buf.subarray(0, n));
    }
  } catch { /* closed by the timer, or reset */ }
  clearTimeout(timer);
  if (!timedOut) conn.close();
  return { closed: !timedOut, answer };
}

for (const read of [false, true]) {
  Deno.test(`Deno.serve: a closing answer ${read ? "closes nothing while a body read waits" : "closes its connection"}`, async () => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
      onError: (error) => {
        if (!(error instanceof ConnectionClosedOnPurpose)) throw error;
        return new Response(null, { status: 500 });
      },
    }, async (request) => {
      const reader = request.body!.getReader({ mode: "byob" });
      if (read) {
        // A read of the body that waits (the client sends nothing), given up after 200 ms.
        const pending = reader.read(new Uint8Array(4096));
        await new Promise((r) => setTimeout(r, 200));
        await reader.cancel();
        await pending;
      } else await reader.cancel();
      return closingAnswer(closeAfter(new Response("Request body too large.", { status: 413 })));
    });
    try {
      const { closed, answer } = await closedWithin(server.addr.port, 2000);
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.equal(closed, !read, read ? "Deno.serve now closes it: see this file's notes" : answer);
    } finally {
      await server.shutdown();
    }
  });
}
