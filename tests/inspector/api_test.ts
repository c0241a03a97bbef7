/**
 * The inspector's JSON API over real HTTP on 127.0.0.1 (no browser): paging
 * from the end, filters and search, one event, raw bytes, the live stream,
 * replay and its guards, the Host check and the security headers.
 */
import assert from "node:assert/strict";
import { decodeBody } from "../../src/event/record.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { assertEquals, assertIncludes } from "./_assert.ts";
import { BINARY, inspectorFixture, newEvent, rawGet, targetServer } from "./_fixture.ts";

const json = async (r: Response) => await r.json();

Deno.test("the list pages from the newest event back, with a cursor, until the start of the log", async () => {
  await using fx = await inspectorFixture();
  const base = fx.inspector.url;
  const first = await json(await fx.fetch(`${base}api/events?limit=12`));
  assertEquals(first.events.length, 12);
  assertEquals(first.events[0].id, fx.events.at(-1)!.id);
  assert(first.next > 0);
  const ids: string[] = first.events.map((e: { id: string }) => e.id);
  let next = first.next;
  while (next !== null) {
    const page = await json(await fx.fetch(`${base}api/events?limit=12&before=${next}`));
    ids.push(...page.events.map((e: { id: string }) => e.id));
    next = page.next;
  }
  assertEquals(ids, fx.events.map((e) => e.id).reverse());
  assertEquals(first.events[0].provider, fx.events.at(-1)!.provider);
});

Deno.test("filters narrow the list with the CLI's rules: endpoint, method, provider/type, verdict, time, search, where, header", async () => {
  await using fx = await inspectorFixture();
  const list = async (q: string) =>
    (await json(await fx.fetch(`${fx.inspector.url}api/events?limit=1000&${q}`))).events.map((
      e: { id: string },
    ) => e.id);
  const expect = (keep: (e: (typeof fx.events)[number]) => boolean) =>
    fx.events.filter(keep).map((e) => e.id).reverse();
  assertEquals(await list("endpoint=github"), expect((e) => e.endpoint === "github"));
  assertEquals(await list("method=put"), expect((e) => e.method === "PUT"));
  assertEquals(
    await list("provider=github&type=push"),
    expect((e) => e.provider === "github" && e.type === "push"),
  );
  assertEquals(await list("verdict=invalid"), expect((e) => e.verdict?.status === "invalid"));
  // As in the CLI: a missing verdict is unsigned, and "none" is not a verdict.
  assertEquals(await list("verdict=unsigned"), expect((e) => e.verdict === undefined));
  assertEquals((await fx.fetch(`${fx.inspector.url}api/events?verdict=none`)).status, 400);
  // As in the CLI: a type matches exactly or as a prefix up to a dot; "pull" is not "pull_request".
  assertEquals(await list("type=pull_request"), expect((e) => e.type === "pull_request"));
  assertEquals(await list("type=pull"), []);
  const mid = fx.events[10]!.receivedAt;
  assertEquals(await list(`since=${mid}`), expect((e) => e.receivedAt >= mid));
  assertEquals(await list(`until=${mid}`), expect((e) => e.receivedAt < mid));
  // Smart case, as in the CLI: a term with a capital is matched exactly, any other in any case.
  assertEquals(await list("q=HELLO%2BWORLD"), []);
  assertEquals(await list("q=hello%2Bworld"), expect((e) => e.body.includes("hello+world")));
  assertEquals(await list("q=hookshot"), expect((e) => e.headers.some(([, v]) => v.includes("Hookshot"))));
  // The search looks at the path and query too, and where and header are the CLI's.
  assertEquals(await list("q=n%3D10"), expect((e) => e.query === "n=10"));
  assertEquals(await list("where=action%3Dopened"), expect((e) => /"action":"opened"/.test(e.body)));
  assertEquals(
    await list("header=User-Agent%3DStripe/1.0&since=2h"),
    expect((e) => e.endpoint === "stripe"),
  );
  assertEquals(await list("q=req-7"), [fx.events[7]!.id]);
  const forwarded = (i: number) => fx.events[i]!.forward !== undefined && i !== fx.events.length - 1;
  const byIndex = (keep: (i: number) => boolean) =>
    fx.events.filter((_, i) => keep(i)).map((e) => e.id).reverse();
  assertEquals(await list("delivery=delivered"), byIndex((i) => forwarded(i) && i % 8 === 0));
  assertEquals(await list("delivery=failed"), byIndex((i) => forwarded(i) && i % 8 !== 0));
  assertEquals(await list("delivery=pending"), byIndex((i) => i === fx.events.length - 1 && i % 4 === 0));
  // Base64 bodies are searched as their bytes: "PNG" is in the binary body only.
  assertEquals(await list("q=PNG"), expect((e) => e.bodyEncoding === "base64"));
  const bad = await fx.fetch(`${fx.inspector.url}api/events?since=yesterday-ish`);
  assertEquals(bad.status, 400);
  assertIncludes((await json(bad)).error, "since must be a duration like 10m, 2h or 1d, or an ISO time");
});

Deno.test("one event comes whole, and its raw body byte for byte as a download", async () => {
  await using fx = await inspectorFixture();
  const binary = fx.events.find((e) => e.bodyEncoding === "base64")!;
  const detail = await json(await fx.fetch(`${fx.inspector.url}api/events/${binary.id}`));
  assertEquals(detail.event, binary);
  assertEquals(detail.delivery, "none");
  const failed = fx.events[4]!;
  const withAttempts = await json(await fx.fetch(`${fx.inspector.url}api/events/${failed.id}`));
  assertEquals(withAttempts.delivery, "failed");
  assertEquals(withAttempts.attempts.map((a: { attempt: number }) => a.attempt), [1, 2]);
  const raw = await fx.fetch(`${fx.inspector.url}api/events/${binary.id}/raw`);
  assertEquals(raw.headers.get("content-type"), "application/octet-stream");
  assertIncludes(raw.headers.get("content-disposition")!, "attachment");
  assertEquals(new Uint8Array(await raw.arrayBuffer()), BINARY);
  assertEquals(decodeBody(binary), BINARY);
  assertEquals(
    (await fx.fetch(`${fx.inspector.url}api/events/evt_20240101_01HX0000000000000000000000`)).status,
    404,
  );
  await (await fx.fetch(`${fx.inspector.url}api/events/nope`)).body?.cancel();
});

Deno.test("the live stream sends a stored event at once, filtered like the list", async () => {
  await using fx = await inspectorFixture();
  const response = await fx.fetch(`${fx.inspector.url}api/stream?endpoint=github`);
  assertEquals(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  await reader.read(); // the opening comment
  const skipped = newEvent('{"skip":true}', "stripe");
  const wanted = newEvent('{"live":true}', "github");
  await fx.add(skipped);
  await fx.add(wanted);
  let text = "";
  while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
  await reader.cancel();
  assert.match(text, /^event: event\ndata: /);
  const data = JSON.parse(text.split("data: ")[1]!.split("\n")[0]!);
  assertEquals(data.id, wanted.id);
});

Deno.test("a foreign Host is refused (DNS rebinding); localhost, 127.0.0.1 and [::1] are served", async () => {
  await using fx = await inspectorFixture();
  const port = fx.inspector.port;
  assertIncludes(await rawGet(port, "evil.com"), "403");
  assertIncludes(await rawGet(port, `evil.com:${port}`, "/api/events"), "403");
  assertIncludes(await rawGet(port, "localhost:1"), "403");
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
    assertIncludes(await rawGet(port, host, "/style.css"), "200");
    assertIncludes(await rawGet(port, host, "/api/info"), "401"); // a local Host is no pass: the token is
  }
});

Deno.test("every answer carries the strict CSP, nosniff and no-referrer; the page holds no token", async () => {
  await using fx = await inspectorFixture();
  for (const path of ["", "app.js", "style.css", "api/events", "api/info", "?token=wrong"]) {
    const r = await fx.fetch(fx.inspector.url + path);
    await r.body?.cancel();
    const csp = r.headers.get("content-security-policy")!;
    assertIncludes(csp, "default-src 'none'; script-src 'self'; style-src 'self'");
    assertIncludes(csp, "require-trusted-types-for 'script'");
    assertEquals(r.headers.get("x-content-type-options"), "nosniff");
    assertEquals(r.headers.get("referrer-policy"), "no-referrer");
  }
  const page = await (await fx.fetch(fx.inspector.url)).text();
  assertIncludes(page, '<script type="module" src="/app.js">');
  assert(!page.includes(fx.inspector.token), "the token is never in the page");
  assert(!/<script>|<style>|\son\w+=/i.test(page), "no inline script, style or handlers");
});

Deno.test("replay needs the token (header, or the cookie with the page's origin), sends the exact or edited body, refuses resign", async () => {
  await using fx = await inspectorFixture();
  await using target = targetServer();
  const binary = fx.events.find((e) => e.bodyEncoding === "base64")!;
  const url = `${fx.inspector.url}api/events/${binary.id}/replay`;
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const origin = `http://127.0.0.1:${fx.inspector.port}`;
  const cookie = `hooktap_inspector_${fx.inspector.port}=${fx.inspector.token}`;
  const refused = await post({}, { to: target.url });
  assertEquals(refused.status, 401);
  assertIncludes((await json(refused)).error, "x-hooktap-token");
  const originOnly = await post({ origin }, { to: target.url }); // the page's Origin is no pass either
  assertEquals(originOnly.status, 401);
  await originOnly.body?.cancel();
  const cookieOnly = await post({ cookie }, { to: target.url }); // the cookie needs the page's Origin
  assertEquals(cookieOnly.status, 403);
  await cookieOnly.body?.cancel();
  const foreign = await post({ origin: "http://evil.com", "x-hooktap-token": fx.inspector.token }, {
    to: target.url,
  });
  assertEquals(foreign.status, 403);
  await foreign.body?.cancel();
  assertEquals(target.received.length, 0);

  const ok = await json(await post({ "x-hooktap-token": fx.inspector.token }, { to: target.url }));
  assertEquals(ok.status, 202);
  assertEquals(target.received[0]!.body, BINARY);
  assertEquals(target.received[0]!.headers.get("x-request-id"), binary.headers[2]![1]);

  const edited = await json(
    await post({ origin, cookie }, {
      to: target.url,
      body: '{"edited":true}',
      headers: [["content-type", "application/json"], ["x-edit", "1"]],
    }),
  );
  assertEquals(edited.status, 202);
  assertEquals(new TextDecoder().decode(target.received[1]!.body), '{"edited":true}');
  assertEquals(target.received[1]!.headers.get("x-edit"), "1");
  assertEquals(target.received[1]!.headers.get("x-request-id"), null);

  const resign = await post({ origin, cookie }, { to: target.url, resign: true });
  assertEquals(resign.status, 400);
  assertIncludes((await json(resign)).error, "re-signing is not available");
  const badUrl = await post({ origin, cookie }, { to: "localhost:3000" });
  assertEquals(badUrl.status, 400);
  assertIncludes((await json(badUrl)).error, "http://localhost:3000");
  const refusedConn = await post({ origin, cookie }, { to: "http://127.0.0.1:1/x" });
  assertEquals(refusedConn.status, 502);
  await refusedConn.body?.cancel();
  assertEquals(target.received.length, 2);
});

Deno.test("replay re-signs through the re-signer when one is given", async () => {
  await using fx = await inspectorFixture({
    resign: (event) => ({
      ...event,
      headers: [...event.headers, ["x-signature", `signed:${event.bodySize}`]],
    }),
  });
  await using target = targetServer();
  const event = fx.events[0]!;
  const r = await fx.fetch(`${fx.inspector.url}api/events/${event.id}/replay`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hooktap-token": fx.inspector.token },
    body: JSON.stringify({ to: target.url, body: "abc", resign: true }),
  });
  assertEquals((await json(r)).resigned, true);
  assertEquals(target.received[0]!.headers.get("x-signature"), "signed:3");
  assertEquals((await json(await fx.fetch(`${fx.inspector.url}api/info`))).resign, true);
});

Deno.test("a live stream whose reader does not read is ended, not kept growing", async () => {
  await using fx = await inspectorFixture();
  const response = await fx.fetch(`${fx.inspector.url}api/stream`);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  await reader.read(); // the opening comment, then nothing read while 80,000 events are stored
  const published = 80_000;
  const base = newEvent('{"n":0}');
  const newId = createIdFactory();
  for (let i = 0; i < published; i += 2000) {
    for (let k = i; k < i + 2000; k++) fx.live.publish({ ...base, id: newId(new Date()) });
    await new Promise((r) => setTimeout(r, 0)); // their rows go out between batches
  }
  let rows = 0;
  let text = "";
  let ended = false;
  const until = Date.now() + 60_000; // a stream that did not end: its 80,000 rows take far longer to read
  while (rows < published && Date.now() < until) {
    const { value, done } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    text += value;
    const cut = text.lastIndexOf("\n\n") + 2; // whole messages only
    rows += text.slice(0, cut).split("event: event\n").length - 1;
    text = text.slice(cut);
  }
  await reader.cancel().catch(() => {});
  assert.ok(ended && rows < published, `${rows} rows of ${published}, ended: ${ended}`);
});

Deno.test("replay as GET says the stored body was not sent, as `hooktap replay -X GET` does", async () => {
  await using fx = await inspectorFixture();
  await using target = targetServer();
  const event = fx.events.find((e) => e.bodySize > 0)!;
  const r = await fx.fetch(`${fx.inspector.url}api/events/${event.id}/replay`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ to: target.url, method: "GET" }),
  });
  const answer = await json(r);
  assertEquals(target.received[0]!.method, "GET");
  assertEquals(target.received[0]!.body.length, 0);
  assertIncludes(String(answer.warning), `GET requests carry no body; the stored ${event.bodySize} B body`);
});
