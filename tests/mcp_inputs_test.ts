/**
 * `hooktap mcp`'s tools take what their schemas say and speak in their own
 * words, found by a new-user audit: a real `hooktap dev` (GitHub and Stripe
 * endpoints) forwarding to an app that verifies with `@octokit/webhooks` and
 * `stripe`, and `hooktap mcp` driven by the official MCP SDK client over
 * stdio, as the npm launcher starts it (`HOOKTAP_INVOKED_AS=npx hooktap`).
 * - `replay`'s `method` is the method to send with, also with `id` (it was
 *   taken for the received-method filter, so `id` + `method` was refused);
 *   the filter is `filter_method`, as the CLI's `--filter-method`.
 * - `provider` is checked and made canonical as `logs --provider` does (an
 *   alias finds its events; a typo is refused with the nearest name).
 * - `replay` refuses an endpoint the config does not have, as the CLI does.
 * - Errors and warnings name the tools' inputs and tools, not the CLI's
 *   options and commands (`npx hooktap logs`, `-H`, `--resign`).
 */
import assert from "node:assert/strict";
import { Webhooks } from "@octokit/webhooks";
import Stripe from "stripe";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { startMcp } from "./_mcp_client.ts";
import { logText, makeEvents } from "./_store_fixture.ts";
import { until, unusedPort } from "./_app.ts";
import { VERDICT_NAMES } from "../src/names.ts";

const GITHUB_SECRET = "gh-secret-for-the-mcp-inputs-test";
const STRIPE_SECRET = "whsec_mcp_inputs_test";

/** The app: verifies each request with the sender's own library, and keeps the method and the verdict. */
function verifyingApp() {
  const github = new Webhooks({ secret: GITHUB_SECRET });
  const stripe = new Stripe("sk_test_x");
  const got: { method: string; path: string; verified: boolean }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    let verified = false;
    try {
      verified = path.includes("github")
        ? await github.verify(body, req.headers.get("x-hub-signature-256") ?? "")
        : (await stripe.webhooks.constructEventAsync(
          body,
          req.headers.get("stripe-signature") ?? "",
          STRIPE_SECRET,
        ),
          true);
    } catch { /* refused by the library */ }
    got.push({ method: req.method, path, verified });
    return new Response(verified ? "verified" : "bad signature", { status: verified ? 200 : 400 });
  });
  return { got, url: `http://127.0.0.1:${server.addr.port}`, server };
}

Deno.test({
  name: "hooktap mcp: replay's method with an id, provider names checked, and messages in the tools' words",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const app = verifyingApp();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default {
  port: 0,
  endpoints: [
    { name: "github", path: "/github", method: "POST", provider: "github", secret: ${
        JSON.stringify(GITHUB_SECRET)
      },
      forward: "${app.url}/webhooks/github" },
    { name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: ${
        JSON.stringify(STRIPE_SECRET)
      },
      forward: "${app.url}/webhooks/stripe" },
    { name: "raw", path: "/raw", method: "POST" },
  ],
};
`,
    );
    try {
      await using dev = await startDev(tmp.path);
      await using mcp = await startMcp(tmp.path, {
        env: { HOOKTAP_INVOKED_AS: "npx hooktap" }, // as the npm launcher starts it
      });
      const gh = await mcp.call("trigger", { provider: "github", event: "push" });
      assert.equal(gh.isError, false, gh.text);
      const ghId: string = gh.structured?.deliveries[0].storedEventId;

      // replay's `method` is the method to send with, with an id too.
      const put = await mcp.call("replay", { id: ghId, method: "PUT", to: `${app.url}/webhooks/github` });
      assert.equal(put.isError, false, put.text);
      assert.equal(put.structured?.results[0].method, "PUT");
      assert.deepEqual(app.got.at(-1), { method: "PUT", path: "/webhooks/github", verified: true });
      // Inputs an agent sends empty because the schema has them are no filters: `id` still goes alone.
      const filled = await mcp.call("replay", {
        id: ghId,
        undelivered: false,
        text: "",
        where: [],
        resign: false,
        to: `${app.url}/webhooks/github`,
      });
      assert.equal(filled.isError, false, filled.text);
      assert.deepEqual(filled.structured?.results.map((r: { id: string }) => r.id), [ghId]);
      const listed = await mcp.call("search_events", {
        endpoint: "",
        undelivered: false,
        provider: "github",
      });
      assert.deepEqual(listed.structured?.events.map((e: { id: string }) => e.id), [ghId]);
      // Every input is honoured or refused: `limit` bounds a bulk replay, and means nothing with an `id`.
      const limited = await mcp.call("replay", { id: ghId, limit: 5 });
      assert.equal(limited.isError, true);
      assert.match(
        limited.text,
        /^limit bounds a replay of the events the filters match; .* leave limit out\./,
      );
      // In a bulk replay, the received method is `filter_method`; `method` still overrides.
      const bulk = await mcp.call("replay", {
        provider: "github",
        filter_method: "post",
        method: "PATCH",
        to: `${app.url}/webhooks/github`,
      });
      assert.equal(bulk.isError, false, bulk.text);
      assert.deepEqual(bulk.structured?.results.map((r: { id: string }) => r.id), [ghId]);
      assert.deepEqual(app.got.at(-1), { method: "PATCH", path: "/webhooks/github", verified: true });
      const none = await mcp.call("replay", { provider: "github", filter_method: "GET" });
      assert.equal(none.structured?.sent, 0, "no GitHub event was received with GET");

      // `provider` as logs --provider reads it: an alias finds its events, a typo is refused.
      const svix = await mcp.call("trigger", {
        provider: "svix",
        event: "user.created",
        to: `${dev.url}/raw`,
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      });
      assert.equal(svix.isError, false, svix.text);
      assert.equal(svix.structured?.deliveries[0].status, 200);
      const byAlias = await mcp.call("search_events", { provider: "svix" });
      assert.deepEqual(byAlias.structured?.events.map((e: { endpoint: string }) => e.endpoint), ["raw"]);
      assert.equal(byAlias.structured?.events[0].provider, "standard-webhooks");
      const byCase = await mcp.call("search_events", { provider: "GitHub" });
      assert.deepEqual(byCase.structured?.events.map((e: { id: string }) => e.id), [ghId]);
      for (const tool of ["search_events", "wait_for_event", "replay"]) {
        const typo = await mcp.call(tool, {
          provider: "githib",
          ...(tool === "wait_for_event" ? { timeout_seconds: 1 } : {}),
        });
        assert.equal(typo.isError, true, `${tool}: ${typo.text}`);
        assert.match(typo.text, /provider must name a provider, got "githib": did you mean github\?/);
      }

      // replay refuses an endpoint the config does not have, as `replay --endpoint` does.
      const unknown = await mcp.call("replay", { endpoint: "githb" });
      assert.equal(unknown.isError, true, unknown.text);
      assert.match(
        unknown.text,
        /^No event is stored or can arrive for endpoint "githb": the config has no endpoint of that name \(it has "github", "stripe", "raw"\)/,
      );

      // Messages name the tools' inputs and tools, never the CLI's options or commands.
      const notAnId = await mcp.call("get_event", { id: "nope" });
      assert.equal(notAnId.isError, true);
      assert.match(notAnId.text, /"nope" is not an event id\. .* search_events lists them\./);
      const missing = await mcp.call("get_event", { id: "evt_20990101_01ZZZZZZZZZZZZZZZZZZZZZZZZ" });
      assert.match(missing.text, /Run search_events to list the stored events\./);
      const header = await mcp.call("replay", { id: ghId, headers: ["X-Evil"] });
      assert.match(header.text, /^`headers` expects "Name: value"/);
      const setPath = await mcp.call("replay", { id: ghId, set: ["nope.x=1"] });
      assert.match(setPath.text, /^`set` nope\.x: .* or add `set_new: true` to create it/);
      const event = await mcp.call("trigger", { provider: "github", event: "psh" });
      assert.match(
        event.text,
        /did you mean push\? Run list_triggers \{"provider": "github"\} to see them all\./,
      );
      for (const c of [notAnId, missing, header, setPath, event]) {
        assert.doesNotMatch(c.text, /hooktap (logs|trigger)|(^|\s)(-H|--[a-z-]+)\b/, c.text);
      }

      // Signed with a secret that is not the endpoint's: dev's verdict says so, not a bare 200.
      const wrong = await mcp.call("trigger", {
        provider: "github",
        event: "ping",
        secret: "not-the-endpoints",
      });
      assert.equal(wrong.structured?.deliveries[0].status, 200);
      assert.equal(wrong.structured?.deliveries[0].devVerdict, "invalid");
      assert.match(wrong.text, /\(dev's verdict: invalid: get_event gives the reason\)/);

      // A stale Stripe delivery: dev's verdict is in the summary; the app refuses its replay, and the
      // warning says to send it with `resign: true`, which the app's library then accepts.
      const stale = await mcp.call("trigger", { provider: "stripe", event: "invoice.paid", stale: true });
      assert.equal(stale.isError, false, stale.text);
      assert.match(stale.text, /\(dev's verdict: expired, as the fault intends\)/);
      const staleId: string = stale.structured?.deliveries[0].storedEventId;
      const refused = await mcp.call("replay", { id: staleId });
      assert.equal(refused.structured?.results[0].status, 400);
      const warning: string = refused.structured?.results[0].warning;
      assert.match(warning, /send it with `resign: true` to sign it afresh/);
      assert.doesNotMatch(warning, /--resign/);
      const resigned = await mcp.call("replay", { id: staleId, resign: true });
      assert.equal(resigned.structured?.results[0].status, 200, resigned.text);
      assert.deepEqual(app.got.at(-1), { method: "POST", path: "/webhooks/stripe", verified: true });

      // A bulk replay tells a client that asks for progress of each send (it can outlast a request timeout).
      const beats: string[] = [];
      const all = await mcp.call("replay", { filter_method: "POST", to: `${app.url}/any` }, (p) => {
        beats.push(p.message ?? "");
      });
      assert.equal(all.isError, false, all.text);
      const n: number = all.structured?.sent;
      assert.ok(n >= 3, `sent ${n}`);
      // The SDK client handles a notification a microtask late, so one that comes with the answer may be
      // dropped: those before it are each send's, in order.
      assert.ok(beats.length >= 1, "progress while the replay went on");
      beats.forEach((b, i) => assert.match(b, new RegExp(`^sent ${i + 1} of ${n}: evt_`)));
    } finally {
      await app.server.shutdown();
    }
  },
});

Deno.test({
  name:
    "hooktap mcp without dev: list_triggers counts per provider unless asked for one or a name; an empty secret is refused",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await using mcp = await startMcp(tmp.path);
    const all = await mcp.call("list_triggers");
    assert.equal(all.isError, false, all.text);
    assert.deepEqual(all.structured?.entries, []);
    const github = all.structured?.providers.find((p: { provider: string }) => p.provider === "github");
    assert.ok(github.entries > 200, `github has ${github.entries}`);
    assert.ok(all.text.length < 8192, `the answer is ${all.text.length} characters`);
    assert.match(all.text, /Ask for one provider's \(provider: "github"\) or for names with a text/);
    const invoice = await mcp.call("list_triggers", { match: "Invoice.Paid" });
    const names = invoice.structured?.entries.map((e: { provider: string; name: string }) =>
      `${e.provider} ${e.name}`
    );
    assert.ok(names.includes("stripe invoice.paid"), names.join(", "));
    assert.ok(names.every((n: string) => n.toLowerCase().includes("invoice.paid")), names.join(", "));
    const one = await mcp.call("list_triggers", { provider: "github", match: "push" });
    assert.ok(one.structured?.entries.some((e: { name: string }) => e.name === "push"));
    assert.deepEqual(one.structured?.providers, [{
      provider: "github",
      entries: one.structured?.entries.length,
    }]);
    // tools/list offers only what each tool takes: a wait has no `undelivered` (it was listed, then always
    // refused); replay's received-method filter is `filter_method`, its `method` the one to send with.
    const inputs = (name: string) =>
      Object.keys(mcp.tools.find((t: { name: string }) => t.name === name)!.inputSchema.properties ?? {});
    assert.ok(!inputs("wait_for_event").includes("undelivered"), inputs("wait_for_event").join(", "));
    assert.ok(inputs("wait_for_event").includes("provider"));
    assert.ok(inputs("replay").includes("filter_method") && inputs("replay").includes("method"));
    // The verdict filter offers every verdict name src/names.ts lists (never a copy of the list).
    const tool = (name: string) => mcp.tools.find((t: { name: string }) => t.name === name)!;
    for (const name of ["search_events", "wait_for_event", "replay"]) {
      assert.deepEqual(tool(name).inputSchema.properties.verdict.enum, [...VERDICT_NAMES], name);
    }
    const shown = tool("get_event").outputSchema.properties.event.properties.verdict.properties.status.enum;
    assert.deepEqual(shown, [...VERDICT_NAMES]);
    const wait = await mcp.call("wait_for_event", { undelivered: true, timeout_seconds: 1 });
    assert.equal(wait.isError, true);
    assert.match(wait.text, /Unrecognized key: "undelivered"/);

    // A wait whose `until` is past can never be met: refused at once, not a timeout later.
    const past = await mcp.call("wait_for_event", { until: "1h", timeout_seconds: 30 });
    assert.equal(past.isError, true, past.text);
    assert.match(past.text, /^until "1h" is .*, already past: no event that arrives now can match it\./);

    // An empty secret is refused by the schema, naming the input (it was "hooktap failed unexpectedly").
    const empty = await mcp.call("trigger", {
      provider: "github",
      event: "push",
      to: "http://127.0.0.1:9/hook",
      secret: "",
    });
    assert.equal(empty.isError, true);
    assert.match(empty.text, /Invalid arguments for tool trigger: .* at secret/);
    assert.doesNotMatch(empty.text, /unexpectedly/);
    const nothing = await mcp.call("list_triggers", { provider: "github", match: "no-such-event" });
    assert.equal(nothing.isError, false);
    assert.match(nothing.text, /No event or sequence of github has "no-such-event" in its name\./);
  },
});

Deno.test({
  name: "hooktap mcp search_events says how many damaged lines it skipped, as logs warns",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const [a, b] = makeEvents(2);
    // A line torn by a crash (or edited by hand) between two good ones.
    const log = logText([a!]) + '{"v":2,"id":"evt_20240501_01HXA5B7K3M2N4P6Q8R0S2T4V6","endpoint":"def\n' +
      logText([b!]);
    await Deno.mkdir(`${tmp.path}/.hooktap`, { mode: 0o700 });
    await Deno.writeTextFile(`${tmp.path}/.hooktap/events.jsonl`, log, { mode: 0o600 });
    await using mcp = await startMcp(tmp.path);
    const listed = await mcp.call("search_events");
    assert.equal(listed.isError, false, listed.text);
    assert.deepEqual(listed.structured?.events.map((e: { id: string }) => e.id), [b!.id, a!.id]);
    assert.equal(listed.structured?.skippedLines, 1);
    assert.match(listed.text, /warning: skipped 1 damaged line in \.hooktap\/events\.jsonl/);
    // A line of a newer format is no damage: the warning says to upgrade, as logs does.
    await Deno.writeTextFile(`${tmp.path}/.hooktap/events.jsonl`, '{"v":9,"id":"evt_x"}\n', { append: true });
    const newer = await mcp.call("search_events");
    assert.equal(newer.structured?.skippedLines, 2);
    assert.match(newer.text, /warning: skipped 1 damaged line in \.hooktap\/events\.jsonl/);
    assert.match(
      newer.text,
      /warning: skipped 1 line in \.hooktap\/events\.jsonl written by a newer hooktap/,
    );
  },
});

Deno.test({
  name:
    "hooktap mcp replay leaves the running dev's waiting events out of an undelivered replay, as replay does",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const down = unusedPort(); // the app is down: dev keeps the event waiting and checks the port
    const app = verifyingApp();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default {
  port: 0,
  endpoints: [{ name: "github", path: "/github", method: "POST", provider: "github",
    secret: ${JSON.stringify(GITHUB_SECRET)}, forward: "http://127.0.0.1:${down}/webhooks/github" }],
};
`,
    );
    try {
      await using _dev = await startDev(tmp.path);
      await using mcp = await startMcp(tmp.path);
      const fired = await mcp.call("trigger", { provider: "github", event: "push" });
      const id: string = fired.structured?.deliveries[0].storedEventId;
      await until(async () => {
        const listed = await mcp.call("search_events", { undelivered: true });
        return listed.structured?.events[0]?.deliveries?.[0]?.state === "pending";
      }, "the event waits for the app (pending)");

      // Nothing listened: the try is no attempt (as `inspect` says "no attempt spent, waits for the app").
      const waiting = await mcp.call("get_event", { id });
      const target = waiting.structured?.event.deliveries[0];
      assert.equal(target.state, "pending");
      assert.ok(
        target.attempts.length >= 1 && target.attempts.every((a: { refused?: boolean }) => a.refused),
      );
      const summary = await mcp.call("search_events");
      assert.equal(summary.structured?.events[0].deliveries[0].attempts, 0);

      // The running dev sends it as soon as the app listens: an undelivered replay leaves it, and says so.
      const bulk = await mcp.call("replay", { undelivered: true });
      assert.equal(bulk.isError, false, bulk.text);
      assert.equal(bulk.structured?.sent, 0);
      assert.deepEqual(bulk.structured?.held, [id]);
      assert.match(
        bulk.text,
        /^1 undelivered event is still pending while a hooktap dev runs here \(pid \d+\)/,
      );
      assert.match(bulk.text, /so nothing was sent/);
      // A single replay is sent as asked (the app is still down here), and warns that dev sends it too.
      const one = await mcp.call("replay", { id, timeout_seconds: 2 });
      assert.match(one.structured?.results[0].warning, /still has this event waiting for its target/);
      // Elsewhere (`to`), nothing is held: the app gets it once, signed right.
      const elsewhere = await mcp.call("replay", { undelivered: true, to: `${app.url}/webhooks/github` });
      assert.equal(elsewhere.structured?.sent, 1, elsewhere.text);
      assert.equal(elsewhere.structured?.held, undefined);
      assert.deepEqual(app.got.at(-1), { method: "POST", path: "/webhooks/github", verified: true });
    } finally {
      await app.server.shutdown();
    }
  },
});
