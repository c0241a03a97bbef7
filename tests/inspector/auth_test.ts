/**
 * The inspector serves only the user who started it (issue 38.3), over real
 * HTTP on 127.0.0.1: every API route and the live stream want the session
 * token; the printed link trades it for an HttpOnly, SameSite=Strict cookie
 * and a redirect; a browser's cookie works only from the inspector's own
 * page; the token files are owner-only and never written through a link.
 * And re-signing an event stored `invalid` needs `resignInvalid` (33.4).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createIdFactory } from "../../src/event/id.ts";
import { buildEvent } from "../../src/event/record.ts";
import { startInspector } from "../../src/inspector/server.ts";
import { storePaths } from "../../src/store/paths.ts";
import { assertEquals, assertIncludes } from "./_assert.ts";
import { inspectorFixture, targetServer } from "./_fixture.ts";

Deno.test("every API route and the stream refuse a request without the right token (401), with a local Host", async () => {
  await using fx = await inspectorFixture();
  const id = fx.events[0]!.id;
  const routes: [string, string][] = [
    ["GET", "api/info"],
    ["GET", "api/events"],
    ["GET", `api/events/${id}`],
    ["GET", `api/events/${id}/raw`],
    ["GET", "api/stream"],
    ["POST", `api/events/${id}/replay`],
  ];
  await using target = targetServer();
  const wrong = fx.inspector.token.replace(/^./, (c) => (c === "a" ? "b" : "a"));
  for (const [method, path] of routes) {
    for (
      const headers of [
        {},
        { "x-hooktap-token": wrong },
        { authorization: `Bearer ${wrong}` },
        { cookie: `hooktap_inspector_${fx.inspector.port}=${wrong}` },
        { cookie: `hooktap_inspector_1=${fx.inspector.token}` }, // another inspector's cookie name
      ]
    ) {
      const r = await fetch(fx.inspector.url + path, {
        method,
        headers: { ...headers, "content-type": "application/json" },
        ...(method === "POST" ? { body: JSON.stringify({ to: target.url }) } : {}),
      });
      const text = await r.text();
      assertEquals(r.status, 401, `${method} ${path} ${JSON.stringify(headers)}: ${text}`);
      assert(!text.includes('"event"'), "no event data in a refusal");
    }
  }
  assertEquals(target.received.length, 0);
  // The token in either header opens every route.
  for (
    const headers of [{ "x-hooktap-token": fx.inspector.token }, {
      authorization: `Bearer ${fx.inspector.token}`,
    }]
  ) {
    const r = await fetch(`${fx.inspector.url}api/events/${id}`, { headers });
    assertEquals(r.status, 200);
    assertEquals((await r.json()).event.id, id);
  }
});

Deno.test("the printed link sets an HttpOnly SameSite=Strict cookie and redirects to a clean URL; the cookie works only from the page", async () => {
  await using fx = await inspectorFixture();
  const wrongLink = await fetch(`${fx.inspector.url}?token=${"0".repeat(64)}`, { redirect: "manual" });
  assertEquals(wrongLink.status, 401);
  assertEquals(wrongLink.headers.get("set-cookie"), null);
  await wrongLink.body?.cancel();

  const link = await fetch(fx.inspector.openUrl, { redirect: "manual" });
  assertEquals(link.status, 303);
  assertEquals(link.headers.get("location"), "/");
  const setCookie = link.headers.get("set-cookie")!;
  assertEquals(
    setCookie,
    `hooktap_inspector_${fx.inspector.port}=${fx.inspector.token}; Path=/; HttpOnly; SameSite=Strict`,
  );
  await link.body?.cancel();
  const cookie = setCookie.split(";")[0]!;
  const own = `http://127.0.0.1:${fx.inspector.port}`;

  const page = await fetch(fx.inspector.url, { headers: { cookie } });
  assertEquals(page.status, 200);
  assert(!(await page.text()).includes(fx.inspector.token));
  const noCookie = await fetch(fx.inspector.url);
  assertEquals(noCookie.status, 401);
  assertIncludes(await noCookie.text(), "open the link hooktap printed");

  const get = (headers: Record<string, string>) =>
    fetch(`${fx.inspector.url}api/events?limit=1`, { headers: { cookie, ...headers } }).then(async (r) => {
      await r.body?.cancel();
      return r.status;
    });
  assertEquals(await get({}), 200);
  assertEquals(await get({ "sec-fetch-site": "same-origin", origin: own }), 200);
  // Browsers send a host's cookies to every port: a page another user serves on 127.0.0.1 gets nothing.
  assertEquals(await get({ origin: "http://127.0.0.1:9999" }), 403);
  assertEquals(await get({ "sec-fetch-site": "same-site" }), 403);
  assertEquals(await get({ "sec-fetch-site": "cross-site" }), 403);
  // Even the token in a header does not let another site's page in.
  assertEquals(await get({ origin: "http://evil.com", "x-hooktap-token": fx.inspector.token }), 403);
});

Deno.test("the token files are owner-only, replace a planted link instead of writing through it, and go when the inspector stops", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_token_" });
  try {
    const paths = storePaths(join(dir, ".hooktap"));
    await Deno.mkdir(paths.dir, { mode: 0o755 });
    await Deno.chmod(paths.dir, 0o755); // a readable directory: the files' own mode must protect them
    // A link planted at the path of the token file of every port the inspector could get.
    const outside = join(dir, "outside.txt");
    await Deno.writeTextFile(outside, "precious\n");
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    await Deno.symlink(outside, join(paths.dir, `inspector-${port}.token`));
    await Deno.symlink(outside, join(paths.dir, `inspector-${port}.html`));
    const inspector = startInspector({ paths, port });
    try {
      assertEquals(inspector.port, port);
      const files = inspector.tokenFiles!;
      assertEquals(await Deno.readTextFile(outside), "precious\n");
      for (const file of [files.token, files.page]) {
        const info = await Deno.lstat(file);
        assertEquals(info.isSymlink, false);
        assertEquals(info.mode! & 0o777, 0o600);
      }
      assertEquals((await Deno.readTextFile(files.token)).trim(), inspector.token);
      assertIncludes(await Deno.readTextFile(files.page), `url=${inspector.openUrl}`);
      // The 401 names the file a script can read the token from.
      const r = await fetch(`${inspector.url}api/info`);
      assertIncludes((await r.json()).error, files.token);
    } finally {
      await inspector.stop();
    }
    assertEquals(await Deno.lstat(join(paths.dir, `inspector-${port}.token`)).then(() => 1, () => 0), 0);
    assertEquals(await Deno.lstat(join(paths.dir, `inspector-${port}.html`)).then(() => 1, () => 0), 0);
    assertEquals(await Deno.readTextFile(outside), "precious\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("replay refuses to re-sign an event stored with an invalid signature unless resignInvalid says so", async () => {
  let resigned = 0;
  await using fx = await inspectorFixture({
    resign: (event, _url, options) => {
      if (event.verdict?.status === "invalid" && !options?.invalid) throw new Error("laundered");
      resigned++;
      return { ...event, headers: [...event.headers, ["x-signature", "fresh"]] };
    },
  });
  await using target = targetServer();
  const invalid = fx.events.find((e) => e.verdict?.status === "invalid")!;
  const post = (body: unknown) =>
    fx.fetch(`${fx.inspector.url}api/events/${invalid.id}/replay`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const refused = await post({ to: target.url, resign: true });
  assertEquals(refused.status, 400);
  const error = (await refused.json()).error as string;
  assertIncludes(
    error,
    `Refusing to re-sign ${invalid.id}: its signature was invalid when hooktap received it`,
  );
  assertIncludes(error, '"resignInvalid": true');
  assertEquals(target.received.length, 0);
  assertEquals(resigned, 0);
  const forced = await post({ to: target.url, resign: true, resignInvalid: true });
  assertEquals(forced.status, 200);
  assertEquals((await forced.json()).resigned, true);
  assertEquals(target.received[0]!.headers.get("x-signature"), "fresh");
  // Sent as stored (not re-signed), it goes without a word about re-signing.
  const plain = await post({ to: target.url });
  assertEquals(plain.status, 200);
  await plain.body?.cancel();
  assertEquals(target.received.length, 2);
});

Deno.test("a stale Stripe signature replayed from the inspector names the old timestamp and Re-sign, not a missing secret", async () => {
  const at = new Date(Date.now() - 3_600_000);
  const event = buildEvent({
    id: createIdFactory()(at),
    endpoint: "stripe",
    receivedAt: at,
    method: "POST",
    path: "/stripe",
    query: "",
    headers: [["content-type", "application/json"], [
      "stripe-signature",
      `t=${Math.floor(at.getTime() / 1000)},v1=00`,
    ]],
    body: new TextEncoder().encode('{"type":"invoice.paid"}'),
    remoteAddr: "127.0.0.1",
  });
  event.provider = "stripe";
  event.verdict = { status: "valid" };
  await using fx = await inspectorFixture({ events: [event] });
  await using target = targetServer();
  const r = await fx.fetch(`${fx.inspector.url}api/events/${event.id}/replay`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ to: target.url }),
  });
  const answer = await r.json();
  assertEquals(r.status, 200, JSON.stringify(answer));
  assertIncludes(answer.warning, "the stored Stripe signature covers its timestamp (about 60 min ago)");
  assertIncludes(answer.warning, 'replay it with "resign": true (the Re-sign box)');
  assert(!/add the signing secret|--resign/.test(answer.warning), answer.warning);
});
