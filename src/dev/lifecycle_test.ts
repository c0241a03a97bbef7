import assert from "node:assert/strict";
import { compose, stopRequested } from "./lifecycle.ts";

/** A part that logs its start and its stop; `fail` makes its start throw. */
function part(log: string[], name: string, fail = false): Promise<AsyncDisposable> {
  if (fail) return Promise.reject(new Error(`${name} could not start`));
  log.push(`start ${name}`);
  return Promise.resolve({
    [Symbol.asyncDispose]: () => {
      log.push(`stop ${name}`);
      return Promise.resolve();
    },
  });
}

Deno.test("compose: a part that throws on start unwinds the started ones in reverse order, and its error is thrown", async () => {
  const log: string[] = [];
  const error = await rejection(() =>
    compose(async (stack) => {
      stack.use(await part(log, "store"));
      stack.use(await part(log, "listener"));
      stack.use(await part(log, "inspector", true));
      stack.use(await part(log, "live"));
    })
  );
  assert.deepEqual((error as Error).message, "inspector could not start");
  assert.deepEqual(log, ["start store", "start listener", "stop listener", "stop store"]);
});

Deno.test("compose: a part that fails to stop while unwinding does not hide why the start failed", async () => {
  const log: string[] = [];
  const error = await rejection(() =>
    compose(async (stack) => {
      stack.use(await part(log, "store"));
      stack.defer(() => Promise.reject(new Error("listener would not close")));
      throw new Error("hub refused the token");
    })
  );
  assert.deepEqual((error as Error).message, "hub refused the token");
  assert.deepEqual(log, ["start store", "stop store"]);
});

Deno.test("compose: stop unwinds once, last started first, however often it is called", async () => {
  const log: string[] = [];
  let disposals = 0;
  const running = await compose(async (stack) => {
    stack.use(await part(log, "store"));
    stack.defer(async () => {
      disposals++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      log.push("drained");
    });
    stack.use(await part(log, "live"));
    return 42;
  });
  assert.equal(running.value, 42);
  assert.deepEqual(log, ["start store", "start live"]);
  const first = running.stop();
  const second = running.stop(); // a second Ctrl-C (or SIGTERM) while the first drains
  assert.equal(first, second);
  await Promise.all([first, second, running[Symbol.asyncDispose]()]);
  assert.deepEqual(disposals, 1);
  assert.deepEqual(log, ["start store", "start live", "stop live", "drained", "stop store"]);
  // Every caller waited for the same, complete unwinding.
  await running.stop();
  assert.deepEqual(disposals, 1);
});

Deno.test("compose: `await using` unwinds the parts at the end of the scope", async () => {
  const log: string[] = [];
  {
    await using _running = await compose(async (stack) => {
      stack.use(await part(log, "a"));
      stack.use(await part(log, "b"));
    });
    log.push("running");
  }
  assert.deepEqual(log, ["start a", "start b", "running", "stop b", "stop a"]);
});

Deno.test("stopRequested: resolves on abort (at once when already aborted) and rejects when the listener fails", async () => {
  const already = new AbortController();
  already.abort();
  await stopRequested(already.signal, new Promise(() => {}));

  const later = new AbortController();
  let settled = false;
  const waiting = stopRequested(later.signal, new Promise(() => {})).then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(!settled, "resolved before the signal");
  later.abort();
  await waiting;

  await stopRequested(new AbortController().signal, Promise.resolve());
  const error = await rejection(() =>
    stopRequested(new AbortController().signal, Promise.reject(new Error("the server died")))
  );
  assert.deepEqual((error as Error).message, "the server died");
});

/** The error `run` rejects with (fails when it resolves). */
async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new assert.AssertionError({ message: "expected a rejection" });
}
