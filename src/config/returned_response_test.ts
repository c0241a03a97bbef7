import assert from "node:assert/strict";
import { readReturnedResponse } from "./returned_response.ts";
import { WORKER_SOURCE } from "./code_worker.ts";

Deno.test("a returned Response is read to its status, headers in order (repeats kept) and body text", async () => {
  const headers = new Headers([["set-cookie", "a=1"], ["set-cookie", "b=2"], ["x-kind", "test"]]);
  const read = await readReturnedResponse(new Response("hello", { status: 201, headers }));
  assert.deepEqual(read, {
    ok: true,
    value: {
      status: 201,
      headers: [["content-type", "text/plain;charset=UTF-8"], ["set-cookie", "a=1"], ["set-cookie", "b=2"], [
        "x-kind",
        "test",
      ]],
      body: "hello",
    },
  });
});

Deno.test("a returned Response whose body cannot be read says why, never throws", async () => {
  const used = new Response("once");
  await used.text();
  const read = await readReturnedResponse(used);
  assert.equal(read.ok, false);
  assert.match(
    (read as { failed: string }).failed,
    /^the Response the endpoint's response function returned could not be read: .+/,
  );
});

Deno.test("a config's worker reads a returned Response with this one reader: its source carries the reader's text", () => {
  // One reader for the receiver's thread and the worker (src/receiver/answer.ts, ./code_worker.ts): the
  // worker's string of code carries the function itself, not a copy of its body.
  assert.ok(WORKER_SOURCE.includes(String(readReturnedResponse)));
  assert.equal(WORKER_SOURCE.match(/\.text\(\)/g)?.length, 1, "no second reading of a Response's body");
  assert.equal(WORKER_SOURCE.match(/could not be read/g)?.length, 1, "its message is the reader's alone");
});
