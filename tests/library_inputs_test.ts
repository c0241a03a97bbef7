/**
 * The test library refuses what a user gets wrong, naming the problem and the fix, instead of passing a
 * test that should fail or throwing a runtime TypeError: a `waitFor` filter field it does not know (it was
 * ignored, so the first event of any kind matched), an empty fixture's missing event, an empty re-signing
 * secret (an unset environment variable: the request went out signed with ""), a fixture file not there,
 * and `trigger`'s empty secret ("Key length is zero"), bad `to` ("Invalid URL") and CLI flag names.
 * Real receiver and app over loopback, real files.
 * @module
 */
import assert from "node:assert/strict";
import { loadEvents, replayEvent, startReceiver, trigger, writeFixture } from "../src/testing/mod.ts";
import type { EventMatch } from "../src/testing/mod.ts";
import { withTmpDir } from "./_helpers.ts";

function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, fn, sanitizeOps: true, sanitizeResources: true, sanitizeExit: true });
}

async function post(url: string, body = "{}"): Promise<void> {
  const response = await fetch(url, { method: "POST", body });
  await response.body?.cancel();
}

test("waitFor refuses a filter field it does not know instead of taking any event", async () => {
  await using rx = await startReceiver();
  await post(`${rx.url}/other`);
  await rx.waitFor({ path: "/other" });
  const unknown = { pathname: "/wanted" } as unknown as EventMatch;
  await assert.rejects(rx.waitFor(unknown, { timeout: 200 }), (error: Error) => {
    assert.ok(error instanceof TypeError, String(error));
    assert.match(
      error.message,
      /no field "pathname" \(known: endpoint, method, path, provider, type, verdict\)/,
    );
    assert.match(error.message, /predicate/);
    return true;
  });
  const bare = "/wanted" as unknown as EventMatch;
  await assert.rejects(rx.waitFor(bare, { timeout: 200 }), /write \{ path: "\/wanted" \}/);
  const verdict = { verdict: "ok" } as unknown as EventMatch;
  await assert.rejects(rx.waitFor(verdict, { timeout: 200 }), /verdict must be one of valid, invalid/);
});

test("replayEvent names an empty fixture, and refuses an empty re-signing secret without sending", async () => {
  await using tmp = await withTmpDir();
  const empty = `${tmp.path}/empty.jsonl`;
  await Deno.writeTextFile(empty, "");
  const [none] = await loadEvents(empty);
  const hits: string[] = [];
  await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    hits.push(request.url);
    return new Response("ok");
  });
  const to = `http://127.0.0.1:${app.addr.port}/hook`;
  await assert.rejects(
    replayEvent(none!, { to }),
    /no event to send \(got undefined\)\. Is the fixture empty\?/,
  );

  const recorded = `${tmp.path}/github.jsonl`;
  {
    await using rx = await startReceiver();
    await post(`${rx.url}/hook`);
    await writeFixture([await rx.waitFor({ path: "/hook" })], recorded);
  }
  const [event] = await loadEvents(recorded);
  const secret = Deno.env.get("HOOKTAP_TEST_UNSET_SECRET") ?? "";
  await assert.rejects(
    replayEvent(event!, { to, resign: { secret } }),
    /resign\.secret is empty \(an unset environment variable\?\)/,
  );
  assert.deepEqual(hits, []);
  assert.equal((await replayEvent(event!, { to })).status, 200);
  assert.equal(hits.length, 1);
});

test("loadEvents names a missing fixture and how to record one", async () => {
  await using tmp = await withTmpDir();
  const missing = `${tmp.path}/nope.jsonl`;
  await assert.rejects(loadEvents(missing), (error: Error) => {
    assert.ok(error instanceof Deno.errors.NotFound);
    assert.match(
      error.message,
      /^loadEvents: no file .*nope\.jsonl\. Record one with `hooktap export --format fixture/,
    );
    return true;
  });
  await assert.rejects(loadEvents("tests/fixtures/no_such_fixture.jsonl"), /read from the working directory/);
});

test("trigger names an empty secret, a `to` that is not a URL, and its own options, sending nothing", async () => {
  await using rx = await startReceiver({
    endpoints: [{
      name: "stripe",
      path: "/stripe",
      method: "POST",
      provider: "stripe",
      secret: "whsec_test",
    }],
  });
  const secret = Deno.env.get("HOOKTAP_TEST_UNSET_SECRET") ?? "";
  await assert.rejects(
    trigger("stripe", "invoice.paid", { to: rx, secret }),
    /trigger's `secret` is empty \(an unset environment variable\?\)/,
  );
  await assert.rejects(
    trigger("stripe", "invoice.paid", { to: "127.0.0.1:3000/stripe", secret: "whsec_test" }),
    /`to` must be a full http\(s\) URL .*did you mean http:\/\/127\.0\.0\.1:3000\/stripe \?/,
  );
  await assert.rejects(
    trigger("stripe", "invoice.paid", { to: rx, secret: "whsec_test", set: { "data.nope.x": 1 } }),
    (error: Error) => {
      assert.match(error.message, /add `setNew: true` to create it/);
      assert.doesNotMatch(error.message, /--set/);
      return true;
    },
  );
  assert.deepEqual(rx.events(), []);
  const { response } = await trigger("stripe", "invoice.paid", { to: rx, secret: "whsec_test" });
  assert.equal(response?.status, 200);
  assert.equal((await rx.waitFor({ type: "invoice.paid" })).verdict?.status, "valid");
});

test("urlOf fills a pattern endpoint's parameters, and names them when they are missing", async () => {
  await using rx = await startReceiver({
    endpoints: [
      { name: "hooks", path: "/hooks/:provider", method: "POST" },
      { name: "files", path: "/files/*", method: "PUT" },
      { name: "plain", path: "/plain", method: "POST" },
    ],
  });
  assert.equal(rx.urlOf("hooks", { provider: "git hub" }), `${rx.url}/hooks/git%20hub`);
  assert.equal(rx.urlOf("files", { "0": "a/b.txt" }), `${rx.url}/files/a/b.txt`);
  assert.equal(rx.urlOf("plain"), `${rx.url}/plain`);
  assert.throws(
    () => rx.urlOf("hooks"),
    /endpoint "hooks" has the pattern \/hooks\/:provider: give urlOf its parameters, urlOf\("hooks", \{ provider: "…" \}\) \(missing: provider\)/,
  );
  await post(rx.urlOf("hooks", { provider: "github" }));
  const event = await rx.waitFor({ endpoint: "hooks" });
  assert.deepEqual(event.params, { provider: "github" });
});

test("startReceiver's refusals name its own options, not hooktap.config.ts", async () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  await assert.rejects(startReceiver({ port: taken.addr.port }), (error: Error) => {
    assert.match(
      error.message,
      /address already in use.*startReceiver's `port` option \(0 picks a free port\)/,
    );
    assert.doesNotMatch(error.message, /hooktap\.config\.ts|--port/);
    return true;
  });
  await using rx = await startReceiver({ maxBodySize: 10 });
  const response = await fetch(`${rx.url}/big`, { method: "POST", body: "0123456789ABC" });
  assert.equal(response.status, 413);
  await response.body?.cancel().catch(() => {});
  await assert.rejects(rx.waitFor({ path: "/big" }, { timeout: 100 }), (error: Error) => {
    assert.match(error.message, /POST \/big → 413 \(body larger than startReceiver's `maxBodySize` option/);
    assert.doesNotMatch(error.message, /hooktap\.config\.ts/);
    return true;
  });
});

test("startReceiver refuses a port that is not one, naming the fix", async () => {
  for (const port of [70000, -1, 1.5]) {
    await assert.rejects(
      startReceiver({ port }),
      new RegExp(
        `port must be a whole number from 0 to 65535, got ${port}: leave it out \\(or 0\\) for a free port`,
      ),
    );
  }
});
