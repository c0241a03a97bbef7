import assert from "node:assert/strict";
import { buildEvent } from "../event/record.ts";
import { NetworkError } from "../errors.ts";
import { parseHeaderOption, replayHeaders } from "./headers.ts";
import { checkMethod, networkFailure, replay, replayUrl } from "./replay.ts";

const EVENT = buildEvent({
  id: "evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH",
  endpoint: "default",
  receivedAt: new Date("2024-05-01T10:00:00Z"),
  method: "POST",
  path: "/webhook",
  query: "a=1",
  headers: [
    ["Host", "abc.ngrok.app"],
    ["Content-Type", "application/json"],
    ["Connection", "keep-alive"],
    ["Transfer-Encoding", "chunked"],
    ["Proxy-Authorization", "x"],
    ["Content-Length", "2"],
    ["X-Dup", "1"],
    ["X-Dup", "2"],
  ],
  body: new Uint8Array([0xff, 0x00]),
  remoteAddr: "127.0.0.1",
});

Deno.test("replayHeaders() drops hop-by-hop, proxy-*, host and content-length, and keeps the rest in order", () => {
  assert.deepEqual(replayHeaders(EVENT.headers), [["Content-Type", "application/json"], ["X-Dup", "1"], [
    "X-Dup",
    "2",
  ]]);
});

Deno.test("replayHeaders() lets -H replace every header of a name, add new ones, and remove with an empty value", () => {
  const got = replayHeaders(EVENT.headers, [["x-dup", "3"], ["X-New", "n"], ["content-type", ""]]);
  assert.deepEqual(got, [["x-dup", "3"], ["X-New", "n"]]);
});

Deno.test("parseHeaderOption() reads `Name: value` and rejects anything else", () => {
  assert.deepEqual(parseHeaderOption("Authorization: Bearer a:b"), ["Authorization", "Bearer a:b"]);
  assert.deepEqual(parseHeaderOption("X-Drop:"), ["X-Drop", ""]);
  assert.throws(() => parseHeaderOption("no colon"), /-H expects "Name: value"/);
  assert.throws(() => parseHeaderOption("bad name: x"), /-H expects/);
});

Deno.test("replayUrl() keeps the event's query only when --to has none", () => {
  assert.equal(replayUrl(EVENT, "http://localhost:3000/h").href, "http://localhost:3000/h?a=1");
  assert.equal(replayUrl(EVENT, "http://localhost:3000/h?b=2").href, "http://localhost:3000/h?b=2");
  assert.equal(replayUrl(EVENT, "http://localhost:3000/h?").href, "http://localhost:3000/h?");
  assert.throws(() => replayUrl(EVENT, "localhost:3000"), /--to needs a scheme/);
  assert.throws(() => replayUrl(EVENT, "not a url"), /--to must be a full URL/);
  assert.throws(() => replayUrl(EVENT, "ftp://x/"), /http:\/\/ or https:\/\//);
});

Deno.test("replay() sends the exact body, no redirect following, through the injected fetch", async () => {
  let seen: Request | undefined;
  const fakeFetch = ((input: URL, init: RequestInit) => {
    seen = new Request(input, init);
    assert.equal(init.redirect, "manual");
    return Promise.resolve(new Response("moved", { status: 302, headers: { location: "/elsewhere" } }));
  }) as typeof fetch;
  let t = 0;
  const result = await replay(EVENT, "http://app.test/in", { fetch: fakeFetch, now: () => (t += 5) });
  assert.equal(seen?.url, "http://app.test/in?a=1");
  assert.deepEqual(new Uint8Array(await seen!.arrayBuffer()), new Uint8Array([0xff, 0x00]));
  assert.equal(seen?.headers.get("x-dup"), "1, 2");
  assert.equal(seen?.headers.get("host"), null);
  assert.deepEqual(
    {
      status: result.status,
      ok: result.ok,
      location: result.location,
      body: result.body,
      ms: result.durationMs,
    },
    { status: 302, ok: false, location: "/elsewhere", body: "moved", ms: 5 },
  );
});

Deno.test("replay() sends no body with GET and turns fetch failures into one-line NetworkErrors", async () => {
  let body: BodyInit | null | undefined = "unset";
  const ok = ((_: URL, init: RequestInit) => {
    body = init.body;
    return Promise.resolve(new Response(null, { status: 204 }));
  }) as typeof fetch;
  assert.equal((await replay(EVENT, "http://app.test/", { fetch: ok, method: "get" })).ok, true);
  assert.equal(body, null);
  const refused = (() =>
    Promise.reject(
      new TypeError("fetch failed", {
        cause: new Error("tcp connect error: Connection refused (os error 111)"),
      }),
    )) as typeof fetch;
  await assert.rejects(replay(EVENT, "http://127.0.0.1:4000/", { fetch: refused }), (e: unknown) => {
    assert.ok(e instanceof NetworkError);
    assert.match(e.message, /^Cannot replay to http:\/\/127\.0\.0\.1:4000: connection refused/);
    return true;
  });
  const url = new URL("https://nowhere.invalid/");
  assert.match(
    networkFailure(new TypeError("x", { cause: new Error("dns error: failed to lookup address") }), url, 1)
      .message,
    /cannot resolve the host name "nowhere.invalid"/,
  );
  assert.match(
    networkFailure(
      new TypeError("x", { cause: new Error("invalid peer certificate: UnknownIssuer.") }),
      url,
      1,
    ).message,
    /^Cannot replay to https:\/\/nowhere\.invalid: TLS failed \(.*UnknownIssuer\); check that https:\/\/nowhere\.invalid serves https, or use http:\/\/nowhere\.invalid\.$/,
  );
  assert.match(
    networkFailure(new DOMException("t", "TimeoutError"), url, 2500).message,
    /No answer from https:\/\/nowhere\.invalid within 2\.5 s/,
  );
});

Deno.test("replayUrl() suggests http:// for a --to without a scheme, and checkMethod() refuses a bad method", () => {
  assert.throws(
    () => replayUrl({ query: "" }, "localhost:3000/hook"),
    /did you mean http:\/\/localhost:3000\/hook \?/,
  );
  assert.throws(
    () => replayUrl({ query: "" }, "127.0.0.1:3000"),
    /did you mean http:\/\/127\.0\.0\.1:3000 \?/,
  );
  assert.throws(
    () => replayUrl({ query: "" }, "example.com/hook"),
    /did you mean http:\/\/example\.com\/hook \?/,
  );
  assert.equal(replayUrl({ query: "" }, "http://localhost:3000/hook").href, "http://localhost:3000/hook");
  assert.throws(() => checkMethod("BAD METHOD"), /--method must be an HTTP method like POST/);
  checkMethod("PURGE");
});
