import assert from "node:assert/strict";
import { BodyBytes, BodyTooLargeError, BodyUnreadableError, readBody, releaseBody } from "./body.ts";
import type { IncomingRequest } from "./request.ts";
import { BodyBudget, BodyBudgetError } from "./budget.ts";
import { BodyStalledError, BodyTrailerError, StallWatch } from "./stall.ts";

/** A request whose body yields `chunks`, then stays open for ever when `hang`. */
function streamed(chunks: Uint8Array[], hang = false): Request {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller): Promise<void> | void {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else if (!hang) controller.close();
      else return new Promise(() => {});
    },
  });
  return new Request("http://localhost/x", { method: "POST", body, duplex: "half" } as RequestInit);
}

Deno.test("readBody() trusts no declared length: one byte sent of 25 MiB declared charges one byte", async () => {
  const budget = new BodyBudget(1024);
  const stall = new StallWatch(100);
  const read = readBody(streamed([new Uint8Array([123])], true), 26214400, "26214000", { budget, stall });
  const alive = setTimeout(() => {}, 10_000); // the watch's timer is unref'd: a server keeps the loop alive
  await assert.rejects(read, BodyStalledError);
  clearTimeout(alive);
  assert.equal(budget.used, 0, "nothing stays charged after a failure");
});

Deno.test("readBody() charges the budget as bytes arrive and refuses past it, releasing what it took", async () => {
  const budget = new BodyBudget(10);
  budget.charge(4);
  await assert.rejects(
    readBody(streamed([new Uint8Array(4), new Uint8Array(4)]), 100, null, { budget }),
    BodyBudgetError,
  );
  assert.equal(budget.used, 4);
  const body = await readBody(streamed([new Uint8Array(3), new Uint8Array(3)]), 100, "6", { budget });
  assert.equal(body.length, 6);
  assert.equal(budget.used, 10, "the body read stays charged until the handler releases it");
});

Deno.test("readBody() stops at the limit whatever the declared length says", async () => {
  await assert.rejects(
    readBody(streamed([new Uint8Array(8), new Uint8Array(8)]), 10, "5"),
    BodyTooLargeError,
  );
});

Deno.test("readBody() charges a small declared body whole before reading it, and refuses past the budget", async () => {
  const budget = new BodyBudget(1000);
  budget.charge(990);
  await assert.rejects(readBody(streamed([new Uint8Array(20)]), 100, "20", { budget }), BodyBudgetError);
  assert.equal(budget.used, 990, "a refused body leaves nothing charged");
  budget.release(990);
  const body = await readBody(streamed([new Uint8Array(12), new Uint8Array(8)]), 100, "20", { budget });
  assert.equal(body.length, 20);
  assert.equal(budget.used, 20, "the body read stays charged until the handler releases it");
});

Deno.test("readBody() fails a small declared body that stalls, and gives its charge back", async () => {
  const budget = new BodyBudget(1024);
  const stall = new StallWatch(100);
  const read = readBody(streamed([new Uint8Array([1])], true), 1000, "10", { budget, stall });
  const alive = setTimeout(() => {}, 10_000);
  await assert.rejects(read, BodyStalledError);
  clearTimeout(alive);
  stall.close();
  assert.equal(budget.used, 0);
});

Deno.test("BodyBytes keeps the bytes of many tiny chunks, never the chunks' buffers", () => {
  const kept = new BodyBytes();
  const big = new Uint8Array(64 * 1024); // a runtime read buffer, one byte of it used per chunk
  for (let i = 0; i < 10_000; i++) {
    big[i % big.length] = i & 0xff;
    kept.add(big.subarray(i % big.length, (i % big.length) + 1));
  }
  const body = kept.bytes();
  assert.equal(body.length, 10_000);
  assert.equal(body[9_999], 9_999 & 0xff);
  assert.notEqual(body.buffer, big.buffer, "no view of the reader's buffer is kept");
});

Deno.test("BodyBytes keeps a large chunk that fills its buffer as it is, and returns a small body in its own buffer", () => {
  const large = new Uint8Array(32 * 1024).fill(7);
  const kept = new BodyBytes();
  kept.add(new Uint8Array([1, 2]));
  kept.add(large);
  const body = kept.bytes();
  assert.equal(body.length, 2 + large.length);
  assert.deepEqual([body[0], body[1], body[2]], [1, 2, 7]);
  const small = new BodyBytes();
  small.add(new Uint8Array([5]));
  assert.equal(small.bytes().buffer.byteLength, 1, "a one-byte body does not pin a 4 KiB block");
});

Deno.test("readBody() reads a byte stream into its own blocks (BYOB), one-byte chunks included", async () => {
  let i = 0;
  const body = new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (i++ < 5000) controller.enqueue(new Uint8Array([i & 0xff]));
      else {
        controller.close();
        controller.byobRequest?.respond(0); // a pending BYOB read ends only so
      }
    },
  });
  const request = new Request("http://localhost/x", { method: "POST", body, duplex: "half" } as RequestInit);
  const bytes = await readBody(request, 10_000, null, { chunked: true });
  assert.equal(bytes.length, 5000);
  assert.equal(bytes[4999], 5000 & 0xff);
});

Deno.test("readBody() counts the bodies being read and refuses past the bound, counting nothing then", async () => {
  const budget = new BodyBudget(1024, 1);
  const stall = new StallWatch(100);
  const first = readBody(streamed([new Uint8Array([1])], true), 300_000, "200000", { budget, stall });
  assert.equal(budget.bodies, 1);
  await assert.rejects(readBody(streamed([new Uint8Array(1)]), 1000, null, { budget }), BodyBudgetError);
  const alive = setTimeout(() => {}, 10_000);
  await assert.rejects(first, BodyStalledError);
  clearTimeout(alive);
  stall.close();
  assert.equal(budget.bodies, 0, "a failed read is no longer counted");
  await readBody(streamed([new Uint8Array(1)]), 1000, null, { budget });
  assert.equal(budget.bodies, 0);
});

Deno.test("the stall watch cuts off a chunked body whose data stopped while memory grew past the trailer bound", async () => {
  let rss = 100;
  const stall = new StallWatch(60_000, 50, () => rss);
  const quiet = readBody(streamed([new Uint8Array([1])], true), 1000, null, { chunked: true, stall });
  const alive = setTimeout(() => {}, 10_000);
  await new Promise((r) => setTimeout(r, 400)); // quiet for 200 ms: its baseline is taken
  rss = 200; // grew by 100 > 50
  await assert.rejects(quiet, BodyTrailerError);
  clearTimeout(alive);
  stall.close();
});

/** A request from another source than a web `Request` (node:http's, the hub's): counts asks for `body`. */
function counted(bytes: Uint8Array | null): IncomingRequest & { bodyAsked: number } {
  const request = {
    method: "POST",
    url: "http://localhost/x",
    headers: new Headers(),
    bodyAsked: 0,
    get body() {
      request.bodyAsked++;
      return bytes === null ? null : new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();
    },
    arrayBuffer: () => Promise.resolve(bytes === null ? new ArrayBuffer(0) : bytes.slice().buffer),
  };
  return request;
}

Deno.test("readBody() reads a small declared body with arrayBuffer() alone, never making its stream", async () => {
  // On Deno.serve, asking for `body` first makes arrayBuffer() read through a stream chunk by chunk: that
  // garbage kept ~20 MB more of dev's RSS under a burst (issue 36.5).
  const request = counted(new Uint8Array([1, 2, 3]));
  assert.deepEqual(await readBody(request, 100, "3"), new Uint8Array([1, 2, 3]));
  assert.equal(request.bodyAsked, 0);
});

Deno.test("readBody() refuses a declared body the runtime hides (body null) instead of storing it empty", async () => {
  const budget = new BodyBudget(100);
  await assert.rejects(readBody(counted(null), 100, "3", { budget }), BodyUnreadableError);
  assert.equal(budget.used, 0, "nothing stays charged");
  assert.deepEqual(await readBody(counted(null), 100, "0"), new Uint8Array(0));
  await assert.rejects(readBody(counted(null), 100, null, { chunked: true }), BodyUnreadableError);
});

Deno.test("releaseBody() frees a body readBody read into a buffer of its own, and only such a body", async () => {
  const whole = await readBody(new Request("http://localhost/x", { method: "POST", body: "abc" }), 100, "3");
  assert.equal(new TextDecoder().decode(whole), "abc");
  releaseBody(whole);
  assert.equal(whole.buffer.byteLength, 0, "a Request's arrayBuffer() is its own: freed");

  const byob = await readBody(
    new Request("http://localhost/x", { method: "POST", body: new Blob(["x".repeat(100_000)]).stream() }),
    200_000,
    null,
    { chunked: true },
  );
  assert.equal(byob.length, 100_000);
  releaseBody(byob);
  assert.equal(byob.buffer.byteLength, 0, "the blocks of a BYOB read are its own: freed");

  // A chunk a default reader handed over may share its buffer (node:http's): never freed.
  const chunk = new Uint8Array(64 * 1024).fill(7);
  const kept = await readBody(streamed([chunk]), 100_000, null, { chunked: true });
  releaseBody(kept);
  assert.equal(chunk.buffer.byteLength, 64 * 1024);
  assert.equal(kept[0], 7);
  // Nor the buffer another source's arrayBuffer() gave.
  const other = await readBody(counted(new Uint8Array([9])), 100, "1");
  releaseBody(other);
  assert.equal(other[0], 9);
});

Deno.test("readBody: a declared length over the limit is a 413 even while the budget is full (not a 503 'retry')", async () => {
  const budget = new BodyBudget(1 << 20, 1);
  budget.enter(); // another request's body is being read: no room for a drain
  const body = new Uint8Array(150).fill(0x61);
  const request = new Request("http://localhost/hook", { method: "POST", body });
  await assert.rejects(
    () => readBody(request as unknown as IncomingRequest, 100, "150", { budget }),
    (error: unknown) => error instanceof BodyTooLargeError && error.rest === "given up",
  );
  assert.equal(budget.bodies, 1, "nothing stays counted for the refused body");
  assert.equal((await request.body!.getReader().read()).done, true); // given up: cancelled, not read
});
