import assert from "node:assert/strict";
import { drainAllowance, drainDeclared } from "./over_limit.ts";

const LIMIT = 4096;
const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://localhost/hook", { method: "POST", body, headers });

/** A body that sends `first` and then nothing, never ending. */
const stalled = (first: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first);
    },
  });

Deno.test("drainDeclared reads a rest within twice the limit to its end and drops it", async () => {
  assert.equal(drainAllowance(LIMIT), 2 * LIMIT);
  const request = post(new Uint8Array(2 * LIMIT).fill(0x61));
  assert.equal(await drainDeclared(request, 2 * LIMIT, LIMIT), "drained");
  assert.equal(request.bodyUsed, true);
});

Deno.test("drainDeclared leaves a longer rest to a sender that waits for a go-ahead, else gives it up", async () => {
  const asking = post(new Uint8Array(2 * LIMIT + 1), { expect: "100-Continue" });
  assert.equal(await drainDeclared(asking, 2 * LIMIT + 1, LIMIT), "left");
  assert.equal(asking.bodyUsed, false); // never read: no go-ahead
  const plain = post(new Uint8Array(2 * LIMIT + 1));
  assert.equal(await drainDeclared(plain, 2 * LIMIT + 1, LIMIT), "given up");
  assert.equal((await plain.body!.getReader().read()).done, true); // cancelled: none of its bytes read
});

Deno.test("drainDeclared stops waiting for a rest that stops arriving, and on shutdown", async () => {
  // Its read still waits: the 413 goes out complete (the server could not close this connection).
  assert.equal(await drainDeclared(post(stalled(new Uint8Array(10))), LIMIT + 10, LIMIT), "left");
  const cutOff = new AbortController();
  setTimeout(() => cutOff.abort(), 50);
  assert.equal(
    await drainDeclared(post(stalled(new Uint8Array(10))), LIMIT + 10, LIMIT, cutOff.signal),
    "left",
  );
});
