import assert from "node:assert/strict";
import { buildEvent, type CapturedEvent } from "../event/record.ts";
import { deliverOnce } from "./deliver.ts";
import { closeIdleConnections } from "./client.ts";

function stored(id: string, body: string): CapturedEvent {
  return buildEvent({
    id,
    endpoint: "hook",
    receivedAt: new Date(),
    method: "POST",
    path: "/hook",
    query: "",
    headers: [["Content-Type", "application/json"], ["X-Id", id], ["Connection", "keep-alive"]],
    body: new TextEncoder().encode(body),
    remoteAddr: "127.0.0.1",
  });
}

/** An app on port 0 that keeps each request's body bytes and Content-Length by its X-Id. */
function app() {
  const got = new Map<string, { bytes: Uint8Array; length: string | null }>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    got.set(req.headers.get("x-id")!, {
      bytes: new Uint8Array(await req.arrayBuffer()),
      length: req.headers.get("content-length"),
    });
    return new Response("ok");
  });
  return { got, url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

Deno.test("deliverOnce: each stored body is sent as its exact UTF-8 bytes with its Content-Length, attempts in flight at once and after one another", async () => {
  const sink = app();
  try {
    const bodies = [
      JSON.stringify({ text: "héllo wörld — ☃ 日本語 😀", n: 1 }),
      "x".repeat(9000),
      "",
      JSON.stringify({ lone: "\ud800 surrogate" }), // stored text may hold one: written as U+FFFD, as encode() does
      "é".repeat(30_000),
      ...Array.from({ length: 20 }, (_, i) => `{"i":${i},"pad":"${"ab".repeat(i * 37)}"}`),
    ];
    const events = bodies.map((b, i) => stored(`evt_${i}`, b));
    const send = (e: CapturedEvent) =>
      deliverOnce(e, { name: "t", to: sink.url }, { id: `dlv_${e.id}`, source: "forward", attempt: 1 });
    // All at once, then one after another (a short body after long ones).
    const check = (e: CapturedEvent) => {
      const want = new TextEncoder().encode(e.body);
      assert.deepEqual(sink.got.get(e.id)?.bytes, want, e.id);
      assert.deepEqual(sink.got.get(e.id)?.length, String(want.length));
    };
    for (const r of await Promise.all(events.map(send))) assert.deepEqual(r.record.outcome, "delivered");
    events.forEach(check);
    for (const e of [...events].reverse()) {
      sink.got.delete(e.id);
      assert.deepEqual((await send(e)).record.outcome, "delivered");
      check(e);
    }
  } finally {
    closeIdleConnections();
    await sink.close();
  }
});
