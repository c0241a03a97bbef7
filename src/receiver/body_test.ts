import assert from "node:assert/strict";
import { BodyTooLargeError, readBody } from "./body.ts";
import { BodyBudget, BodyBudgetError } from "./budget.ts";
import { BodyStalledError, StallWatch } from "./stall.ts";

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
