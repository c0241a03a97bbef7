/**
 * The library from a user's test: startReceiver over real loopback HTTP
 * with deno test's sanitizers on (the default), fixtures written, loaded
 * and replayed byte-exact into a real server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ConfigError,
  loadEvents,
  MASKED_SIGNATURE,
  replayEvent,
  startReceiver,
  StoreError,
  writeFixture,
} from "../src/testing/mod.ts";
import { withTmpDir } from "./_helpers.ts";

/**
 * Deno 2.9 runs tests without the ops and resources sanitizers unless asked
 * (`--sanitize-ops`, `--sanitize-resources`, or per test): every test here
 * turns both on, so a socket, file or timer left open fails it.
 */
function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, fn, sanitizeOps: true, sanitizeResources: true, sanitizeExit: true });
}

async function send(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  await response.body?.cancel();
  return response;
}

test("startReceiver keeps what an app sends in memory, in order, exact bytes and repeated headers", async () => {
  await using rx = await startReceiver();
  assert.match(rx.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(rx.urlOf("default"), `${rx.url}/`);
  const binary = new Uint8Array([0xff, 0x00, 0xfe, 0x0a]);
  const headers = new Headers([["content-type", "application/json"]]);
  const first = await send(`${rx.url}/orders`, { method: "POST", headers, body: '{"id":1}' });
  assert.equal(first.status, 200);
  await send(`${rx.url}/any/path?x=1&x=2`, {
    method: "PUT",
    headers: [["X-Tag", "a"], ["X-Tag", "b"]],
    body: binary,
  });
  const events = rx.events();
  assert.deepEqual(events.map((e) => `${e.method} ${e.path}`), ["POST /orders", "PUT /any/path"]);
  const [order, put] = events;
  assert.deepEqual(order?.json(), { id: 1 });
  assert.equal(order?.endpoint, "default");
  assert.equal(order?.headers.get("content-type"), "application/json");
  assert.equal(first.headers.get("x-hooktap-event-id"), order?.id);
  assert.deepEqual(put?.bytes(), binary);
  assert.deepEqual(put?.headerAll("x-tag"), ["a", "b"]);
  assert.deepEqual(put?.searchParams.getAll("x"), ["1", "2"]);
  assert.equal(put?.size, 4);
  assert.throws(() => put?.json(), /is not JSON.*Use \.text\(\) or \.bytes\(\)/);
  // Received before the call: resolves at once.
  assert.equal((await rx.waitFor({ method: "put" }))?.id, put?.id);
});

test("waitFor resolves with an event that arrives after the call, by filter or predicate", async () => {
  await using rx = await startReceiver({
    endpoints: [
      { name: "github", path: "/github", method: "POST" },
      { name: "stripe", path: "/stripe", method: ["POST", "PUT"] },
    ],
  });
  const byFilter = rx.waitFor({ endpoint: "stripe" }, { timeout: 5000 });
  const byPredicate = rx.waitFor((e) => e.json<{ n: number }>().n === 2, { timeout: 5000 });
  await send(rx.urlOf("github"), { method: "POST", body: '{"n":1}' });
  await send(rx.urlOf("stripe"), { method: "PUT", body: '{"n":2}' });
  assert.equal((await byFilter).method, "PUT");
  assert.equal((await byPredicate).endpoint, "stripe");
  assert.deepEqual(Object.keys(rx.urls), ["github", "stripe"]);
  assert.throws(() => rx.urlOf("shopify"), /no endpoint named "shopify"; it has "github", "stripe"/);
});

test("waitFor that times out says what did arrive and what was refused", async () => {
  await using rx = await startReceiver({ endpoints: [{ name: "github", path: "/github", method: "POST" }] });
  await send(rx.urlOf("github"), { method: "POST", body: "{}" });
  await send(`${rx.url}/githbu`, { method: "POST", body: "{}" });
  await send(rx.urlOf("github"), { method: "GET" });
  const error = await rx.waitFor({ method: "POST", path: "/stripe" }, { timeout: 50 }).then(
    () => assert.fail("waitFor resolved"),
    (e: Error) => e,
  );
  assert.match(
    error.message,
    /^waitFor timed out after 50 ms: no event matched \{ method: "POST", path: "\/stripe" \}/,
  );
  assert.match(
    error.message,
    /Received 1 event:\n {2}- POST \/github \(endpoint github\) at \d{4}-\d\d-\d\dT/,
  );
  assert.match(error.message, /Refused 2 requests:/);
  assert.match(error.message, /- POST \/githbu → 404 \(no endpoint has this path\)/);
  assert.match(error.message, /- GET \/github → 405 \(method not allowed; the path accepts POST\)/);
});

test("waitFor on a receiver nothing reached says so and names its URL", async () => {
  await using rx = await startReceiver();
  await assert.rejects(
    rx.waitFor({}, { timeout: 1 }),
    (e: Error) => e.message.includes(`Nothing arrived at ${rx.url} (is the app sending to this URL?)`),
  );
});

test("clear() forgets earlier events: waitFor only sees later ones", async () => {
  await using rx = await startReceiver();
  await send(`${rx.url}/a`, { method: "POST", body: "1" });
  rx.clear();
  assert.deepEqual(rx.events(), []);
  const next = rx.waitFor({ path: /^\/[ab]$/ });
  await send(`${rx.url}/b`, { method: "POST", body: "2" });
  assert.equal((await next).text(), "2");
});

test("a test that fails mid-way: the pending waitFor rejects on dispose and nothing leaks", async () => {
  let pending: Promise<unknown> | undefined;
  let leftBehind: Promise<unknown> | undefined;
  await assert.rejects(async () => {
    await using rx = await startReceiver();
    pending = rx.waitFor({ path: "/never" }, { timeout: 60_000 });
    leftBehind = rx.waitFor({ path: "/never/either" }, { timeout: 60_000 }); // never awaited by anyone
    throw new Error("the app under test crashed");
  }, /the app under test crashed/);
  await assert.rejects(pending!, /^Error: The receiver closed before an event matched \{ path: "\/never" \}/);
  assert.ok(leftBehind);
  // The 60 s timers are gone and the socket is closed: the sanitizers (on) check it at the end of this test.
});

test("close() twice is fine, and waitFor after close still finds earlier events", async () => {
  const rx = await startReceiver();
  await send(`${rx.url}/x`, { method: "POST", body: "x" });
  await rx.close();
  await rx.close();
  assert.equal((await rx.waitFor({ path: "/x" })).text(), "x");
  await assert.rejects(rx.waitFor({ path: "/y" }), /waitFor on a closed receiver/);
  await assert.rejects(fetch(`${rx.url}/x`, { method: "POST" }));
});

test("startReceiver refuses invalid endpoints with each problem's field path", async () => {
  await assert.rejects(
    startReceiver({
      endpoints: [{ name: "gh", path: "github", method: "POST" }, { name: "gh", path: "/b", method: "" }],
    }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, /^startReceiver: the endpoints have 3 problems:/);
      assert.match(
        e.message,
        /endpoints\[0\]\.path must be a string starting with "\/", got "github": use "\/github"/,
      );
      assert.match(e.message, /endpoints\[1\]\.name "gh" is already used by endpoints\[0\]/);
      return true;
    },
  );
});

test("startReceiver with dir appends durably to events.jsonl and holds the data directory's lock", async () => {
  await using tmp = await withTmpDir();
  const dir = join(tmp.path, ".hooktap");
  {
    await using rx = await startReceiver({
      dir,
      endpoints: [{ name: "hook", path: "/hook", method: "POST" }],
    });
    await send(rx.urlOf("hook"), { method: "POST", body: '{"a":1}' });
    await send(rx.urlOf("hook"), { method: "POST", body: '{"a":2}' });
    assert.equal(rx.events().length, 2);
    await assert.rejects(startReceiver({ dir }), StoreError);
    const onDisk = await loadEvents(join(dir, "events.jsonl"));
    assert.deepEqual(onDisk.map((e) => e.json()), [{ a: 1 }, { a: 2 }]);
    assert.deepEqual(onDisk.map((e) => e.id), rx.events().map((e) => e.id));
  }
  // Released on close: a second receiver opens it and appends after the first two.
  await using again = await startReceiver({ dir });
  await send(`${again.url}/later`, { method: "POST", body: "3" });
  assert.equal((await loadEvents(join(dir, "events.jsonl"))).length, 3);
});

test("a recorded fixture replays byte-exact into a real server, which gets the same method, path, query, headers and bytes", async () => {
  await using tmp = await withTmpDir();
  const fixture = join(tmp.path, "recorded.jsonl");
  const body = new Uint8Array([0x7b, 0xff, 0x00, 0x0d, 0x0a, 0x7d]); // not UTF-8
  {
    await using rx = await startReceiver();
    await send(`${rx.url}/hooks/in?source=test&n=1`, {
      method: "PATCH",
      headers: [["X-Repeat", "one"], ["X-Repeat", "two"], ["Content-Type", "application/octet-stream"]],
      body,
    });
    await writeFixture(rx.events(), fixture);
  }
  const [event] = await loadEvents(fixture);
  assert.ok(event);
  assert.equal(event.record.bodyEncoding, "base64");

  let seen: { method: string; url: string; repeat: string | null; body: Uint8Array } | undefined;
  await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    seen = {
      method: request.method,
      url: request.url,
      repeat: request.headers.get("x-repeat"),
      body: new Uint8Array(await request.arrayBuffer()),
    };
    return new Response('{"handled":true}', { status: 202, headers: { "x-app": "yes" } });
  });
  const response = await replayEvent(event, { to: `http://127.0.0.1:${app.addr.port}/webhooks` });
  assert.equal(response.status, 202);
  assert.equal(response.headers.get("x-app"), "yes");
  assert.deepEqual(response.json(), { handled: true });
  assert.equal(seen?.method, "PATCH");
  assert.equal(seen?.url, `http://127.0.0.1:${app.addr.port}/webhooks?source=test&n=1`);
  assert.equal(seen?.repeat, "one, two");
  assert.deepEqual(seen?.body, body);
});

test("writeFixture masks signature headers and keeps the rest; loadEvents names a bad line", async () => {
  await using tmp = await withTmpDir();
  const fixture = join(tmp.path, "signed.jsonl");
  {
    await using rx = await startReceiver();
    await send(`${rx.url}/github`, {
      method: "POST",
      headers: {
        "X-Hub-Signature-256": "sha256=abc",
        "X-GitHub-Event": "push",
        "Stripe-Signature": "t=1,v1=f",
      },
      body: "{}",
    });
    await writeFixture(rx.events(), fixture);
    assert.equal(rx.events()[0]?.header("x-hub-signature-256"), "sha256=abc"); // the receiver's own copy is intact
  }
  const text = await Deno.readTextFile(fixture);
  assert.doesNotMatch(text, /sha256=abc|v1=f/);
  const [event] = await loadEvents(fixture);
  assert.equal(event?.header("x-hub-signature-256"), MASKED_SIGNATURE);
  assert.equal(event?.header("stripe-signature"), MASKED_SIGNATURE);
  assert.equal(event?.header("x-github-event"), "push");

  await Deno.writeTextFile(fixture, text + "\n{not json}\n");
  await assert.rejects(
    loadEvents(fixture),
    new RegExp(`${fixture.replaceAll("/", "\\/")}:3 is not a hooktap event record`),
  );
});

test("replayEvent to an app that is not running says the connection was refused", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await using tmp = await withTmpDir();
  const fixture = join(tmp.path, "one.jsonl");
  {
    await using rx = await startReceiver();
    await send(`${rx.url}/x`, { method: "POST", body: "x" });
    await writeFixture(rx.events(), fixture);
  }
  const [event] = await loadEvents(fixture);
  await assert.rejects(
    replayEvent(event!, { to: `http://127.0.0.1:${port}/` }),
    /connection refused: nothing listens on 127\.0\.0\.1:\d+ \(is your app running\?\)/,
  );
  await assert.rejects(replayEvent(event!, { to: "localhost:3000" }), /replayEvent's `to` needs a scheme/);
});
