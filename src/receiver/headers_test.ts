import assert from "node:assert/strict";
import { innerRequest, requestHeaders } from "./headers.ts";

/** Sends one raw HTTP/1.1 request to a Deno.serve handler on loopback and returns what the handler saw. */
async function serveOnce<T>(raw: string, look: (request: Request) => T): Promise<T> {
  let seen: T | undefined;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    seen = look(request);
    await request.arrayBuffer();
    return new Response("ok");
  });
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    await conn.write(new TextEncoder().encode(raw));
    const buf = new Uint8Array(1024);
    await conn.read(buf);
    conn.close();
  } finally {
    await server.shutdown();
  }
  return seen as T;
}

Deno.test("requestHeaders reads Deno.serve's raw list from the inner request: order, case and repeats as sent", async () => {
  const raw = "POST /h HTTP/1.1\r\nHost: x\r\nX-B: 2\r\nx-a: 1\r\nX-Repeat: one\r\nX-Repeat: two\r\n" +
    "Content-Length: 2\r\nConnection: close\r\n\r\n{}";
  // An object of another kind asked first (a hub event, a stand-in) must not turn the lookup off.
  assert.equal(innerRequest({ method: "POST" }), undefined);
  const seen = await serveOnce(raw, (request) => ({
    inner: innerRequest(request) !== undefined,
    list: requestHeaders(request).map(([k, v]) => `${k}: ${v}`),
  }));
  // The inner request is found: if a Deno release renames it, this fails and the fallback (through Headers,
  // which costs a second copy of the list per request) is what runs.
  assert.equal(seen.inner, true);
  assert.deepEqual(seen.list.filter((l) => /^x-/i.test(l)), [
    "X-B: 2",
    "x-a: 1",
    "X-Repeat: one",
    "X-Repeat: two",
  ]);
});

Deno.test("requestHeaders of a Request made in code falls back to its Headers", () => {
  const request = new Request("http://localhost/h", {
    method: "POST",
    headers: [["X-One", "1"]],
    body: "{}",
  });
  assert.equal(innerRequest(request), undefined);
  assert.deepEqual(requestHeaders(request).filter(([k]) => k.toLowerCase() === "x-one"), [["x-one", "1"]]);
});
