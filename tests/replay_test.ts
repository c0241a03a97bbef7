import assert from "node:assert/strict";
import { runCli, sha256, withTmpDir } from "./_helpers.ts";
import { captureEvents } from "./_capture.ts";

/** What the target got. */
interface Received {
  method: string;
  path: string;
  query: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** A real HTTP server on 127.0.0.1:0 that records requests and answers with `answer`. */
function target(answer: (req: Received) => Response | Promise<Response> = () => new Response("thanks")) {
  const received: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const got = {
      method: request.method,
      path: url.pathname,
      query: url.search.slice(1),
      headers: [...request.headers],
      body: new Uint8Array(await request.arrayBuffer()),
    };
    received.push(got);
    return await answer(got);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    received,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

const header = (r: Received, name: string) => r.headers.filter(([n]) => n === name).map(([, v]) => v);

Deno.test("`hooktap replay` sends the stored method, query, headers and exact body bytes to the --to path, and exits 0 on 2xx", async () => {
  await using tmp = await withTmpDir();
  const body = crypto.getRandomValues(new Uint8Array(3000));
  const [id] = await captureEvents(tmp.path, [{
    path: "/webhook",
    query: "a=1&b=two",
    headers: [["content-type", "application/octet-stream"], ["x-custom", "yes"], ["x-multi", "1"], [
      "x-multi",
      "2",
    ]],
    body,
  }]);
  await using app = target(() => new Response("thanks", { status: 202 }));
  const r = await runCli(["replay", id!, "--to", `${app.url}/app/hook`], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^202 Accepted {2}[\d.]+ ms/);
  assert.match(r.stdout, /\nthanks\n$/);
  const got = app.received[0]!;
  assert.equal(app.received.length, 1);
  assert.equal(got.method, "POST");
  assert.equal(got.path, "/app/hook");
  assert.equal(got.query, "a=1&b=two");
  assert.deepEqual(header(got, "x-custom"), ["yes"]);
  assert.deepEqual(header(got, "x-multi").join(", ").split(", "), ["1", "2"]);
  assert.deepEqual(header(got, "content-type"), ["application/octet-stream"]);
  assert.deepEqual(header(got, "content-length"), ["3000"]);
  assert.deepEqual(header(got, "host"), [new URL(app.url).host]);
  assert.equal(await sha256(got.body), await sha256(body));
});

Deno.test("`hooktap replay` keeps the --to query, adds and replaces headers with -H, and overrides the method", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{
    path: "/webhook",
    query: "orig=1",
    headers: [["content-type", "application/json"], ["x-token", "old"], ["x-drop", "me"]],
    body: '{"a":1}',
  }]);
  await using app = target();
  const r = await runCli(
    [
      "replay",
      id!,
      "--to",
      `${app.url}/h?mine=2`,
      "-H",
      "X-Token: new",
      "-H",
      "X-Added: 1",
      "-H",
      "x-drop:",
      "--method",
      "put",
    ],
    { cwd: tmp.path },
  );
  assert.equal(r.code, 0, r.stderr);
  const got = app.received[0]!;
  assert.equal(got.method, "PUT");
  assert.equal(got.query, "mine=2");
  assert.deepEqual(header(got, "x-token"), ["new"]);
  assert.deepEqual(header(got, "x-added"), ["1"]);
  assert.deepEqual(header(got, "x-drop"), []);
  assert.equal(new TextDecoder().decode(got.body), '{"a":1}');
});

Deno.test("a GitHub X-Hub-Signature-256 made for the original request still verifies after `hooktap replay`", async () => {
  const secret = "It's a Secret to Everybody";
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
      "verify",
    ],
  );
  const payload = new TextEncoder().encode('{"action":"opened","number":1,"note":"Grüße \\u00e9"}\n');
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, payload));
  const signature = "sha256=" + Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{
    path: "/github",
    headers: [["content-type", "application/json"], ["x-github-event", "pull_request"], [
      "x-hub-signature-256",
      signature,
    ]],
    body: payload,
  }]);
  const verdicts: boolean[] = [];
  await using app = target(async (req) => {
    const sent = header(req, "x-hub-signature-256")[0] ?? "";
    const hex = sent.replace(/^sha256=/, "");
    const bytes = new Uint8Array(hex.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
    const ok = await crypto.subtle.verify("HMAC", key, bytes, req.body as BufferSource);
    verdicts.push(ok);
    return new Response(ok ? "verified" : "bad signature", { status: ok ? 200 : 401 });
  });
  const r = await runCli(["replay", id!, "--to", `${app.url}/webhooks/github`], { cwd: tmp.path });
  assert.deepEqual(verdicts, [true]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /verified/);
});

Deno.test("`hooktap replay` exits 1 and shows the status and body when the target answers non-2xx; --json prints one object", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{ path: "/webhook", body: "x" }]);
  await using app = target(() => new Response("boom\x1b[31m", { status: 500 }));
  const r = await runCli(["replay", id!, "--to", app.url], { cwd: tmp.path });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^500 Internal Server Error/);
  assert.match(r.stdout, /boom\\x1b\[31m/);
  const j = await runCli(["replay", id!, "--to", app.url, "--json"], { cwd: tmp.path });
  assert.equal(j.code, 1);
  assert.equal(j.stderr, "");
  const result = JSON.parse(j.stdout);
  assert.equal(j.stdout.trimEnd().split("\n").length, 1);
  assert.equal(result.status, 500);
  assert.equal(result.ok, false);
  assert.equal(result.id, id);
  assert.equal(result.body, "boom\x1b[31m");
});

Deno.test("`hooktap replay` to a port nobody listens on exits 1 with a one-line reason", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{ path: "/webhook", body: "x" }]);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const r = await runCli(["replay", id!, "--to", `http://127.0.0.1:${port}/hook`], { cwd: tmp.path });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  const errors = r.stderr.split("\n").filter((l) => l.startsWith("error:"));
  assert.deepEqual(errors, [
    // The URL is --to's, maybe no app's: what to check is that URL (not only "is your app running?").
    `error: Cannot replay to http://127.0.0.1:${port}: connection refused: nothing listens on 127.0.0.1:${port} ` +
    "(is the URL given with --to right, and does what should answer there run?).",
  ]);
});

Deno.test("`hooktap replay --timeout` gives up on a target that does not answer in time", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{ path: "/webhook", body: "x" }]);
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  await using app = target(async () => {
    await held;
    return new Response("late");
  });
  const r = await runCli(["replay", id!, "--to", app.url, "--timeout", "300ms"], { cwd: tmp.path });
  release();
  assert.equal(r.code, 1);
  assert.match(r.stderr, /error: No answer from http:\/\/127\.0\.0\.1:\d+ within 0\.3 s/);
});

Deno.test("`hooktap replay` warns that a Stripe-signed event older than 5 minutes will be rejected", async () => {
  await using tmp = await withTmpDir();
  const old = Math.floor(Date.now() / 1000) - 3600;
  const fresh = Math.floor(Date.now() / 1000);
  const [stale, recent] = await captureEvents(tmp.path, [
    { path: "/webhook", headers: [["stripe-signature", `t=${old},v1=abc`]], body: "{}" },
    { path: "/webhook", headers: [["stripe-signature", `t=${fresh},v1=abc`]], body: "{}" },
  ]);
  await using app = target();
  const a = await runCli(["replay", stale!, "--to", app.url], { cwd: tmp.path });
  assert.equal(a.code, 0, a.stderr);
  assert.match(
    a.stderr,
    /warning: the stored Stripe signature covers its timestamp \(about 60 min ago\).* will reject the replay as expired.*--resign/,
  );
  const b = await runCli(["replay", recent!, "--to", app.url], { cwd: tmp.path });
  assert.doesNotMatch(b.stderr, /warning/);
});

Deno.test("`hooktap replay` with an unknown id says so and points to `hooktap logs`", async () => {
  await using tmp = await withTmpDir();
  await captureEvents(tmp.path, [{ path: "/webhook", body: "x" }]);
  const r = await runCli(["replay", "evt_20000101_0000", "--to", "http://127.0.0.1:9/"], { cwd: tmp.path });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /No event with id evt_20000101_0000 .*`hooktap logs`/);
});

Deno.test("replay checks --method and --to before reading the store or printing anything (exit 2)", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{ path: "/webhook", body: "a" }]);
  const bad = await runCli(["replay", id!, "--to", "http://127.0.0.1:9/x", "-X", "BAD METHOD"], {
    cwd: tmp.path,
  });
  assert.equal(bad.code, 2, bad.stderr);
  assert.doesNotMatch(bad.stderr, /Replaying/);
  assert.match(bad.stderr, /-X\/--method must be an HTTP method/);
  const bare = await runCli(["replay", id!, "--to", "localhost:3000/hook"], { cwd: tmp.path });
  assert.equal(bare.code, 2, bare.stderr);
  assert.match(bare.stderr, /--to needs a scheme: did you mean http:\/\/localhost:3000\/hook \?/);
});
