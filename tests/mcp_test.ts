/**
 * `hooktap mcp` driven by the official MCP SDK client over stdio, as a coding
 * agent drives it: a real `hooktap dev` and `hooktap mcp` as subprocesses in
 * a temp project, a real app on loopback, and the whole loop (trigger → wait →
 * read → replay). Every tool's schemas are checked as JSON Schema with ajv,
 * and every structured answer against its tool's outputSchema.
 */
import assert from "node:assert/strict";
import { sign, verify } from "@octokit/webhooks-methods";
import { readEvents, startDev, which, withTmpDir, writeFile } from "./_helpers.ts";
import { connectMcp, startMcp } from "./_mcp_client.ts";

const SECRET = "It's a Secret to Everybody";

const CONFIG = `export default {
  port: 0,
  endpoints: [
    { name: "github", path: "/github", method: "POST", provider: "github", secret: ${
  JSON.stringify(SECRET)
} },
    { name: "raw", path: "/raw", method: "POST" },
  ],
};
`;

/** An app on loopback that keeps what it receives. */
function startApp() {
  const got: { method: string; path: string; headers: Headers; body: Uint8Array }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    got.push({
      method: req.method,
      path: new URL(req.url).pathname,
      headers: req.headers,
      body: new Uint8Array(await req.arrayBuffer()),
    });
    return new Response("thanks from the app", { status: 202 });
  });
  return { got, url: `http://127.0.0.1:${server.addr.port}`, server };
}

Deno.test({
  name: "hooktap mcp: trigger a GitHub push into dev, wait for it, read it exactly, replay it byte for byte",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
    const app = startApp();
    try {
      await using dev = await startDev(tmp.path);
      await using mcp = await startMcp(tmp.path);
      assert.deepEqual(
        mcp.tools.map((t: { name: string }) => t.name).sort(),
        [
          "doctor",
          "export_event",
          "get_event",
          "list_endpoints",
          "list_triggers",
          "replay",
          "search_events",
          "trigger",
          "wait_for_event",
        ],
      );

      // Nothing stored yet: an empty list, not an error.
      const empty = await mcp.call("search_events");
      assert.equal(empty.isError, false);
      assert.deepEqual(empty.structured?.events, []);

      const endpoints = await mcp.call("list_endpoints");
      assert.equal(endpoints.structured?.dev.running, true);
      assert.equal(endpoints.structured?.dev.port, dev.port);
      assert.equal(endpoints.structured?.endpoints[0].hasSecret, true);
      assert.ok(!endpoints.text.includes(SECRET), "the secret is never shown");

      // The agent's loop: wait, and meanwhile trigger.
      const waiting = mcp.call("wait_for_event", { provider: "github", type: "push", timeout_seconds: 60 });
      await new Promise((r) => setTimeout(r, 300));
      const fired = await mcp.call("trigger", { provider: "github", event: "push" });
      assert.equal(fired.isError, false, fired.text);
      assert.equal(fired.structured?.viaDev, true);
      assert.equal(fired.structured?.ok, true);
      const delivery = fired.structured?.deliveries[0];
      assert.equal(delivery.status, 200);
      assert.equal(delivery.signed, "secret");
      const id: string = delivery.storedEventId;
      assert.match(id, /^evt_\d{8}_[0-9A-Z]{26}$/);

      const arrived = await waiting;
      assert.equal(arrived.isError, false, arrived.text);
      assert.equal(arrived.structured?.found, true);
      assert.equal(arrived.structured?.event.id, id);

      // get_event by a unique prefix: verdict valid, and the exact body the sender signed.
      const got = await mcp.call("get_event", { id: id.slice(0, 24) });
      assert.equal(got.isError, false, got.text);
      const event = got.structured!.event;
      assert.equal(event.id, id);
      assert.equal(event.verdict.status, "valid");
      assert.equal(event.method, "POST");
      assert.equal(event.path, "/github");
      assert.equal(event.body.encoding, "utf8");
      assert.equal(event.body.truncated, false);
      const header = (name: string) =>
        (event.headers as { name: string; value: string }[]).find((h) => h.name.toLowerCase() === name)
          ?.value;
      assert.equal(header("x-github-event"), "push");
      assert.ok(await verify(SECRET, event.body.data, header("x-hub-signature-256")!), "GitHub's own check");
      const stored = (await readEvents(tmp.path)).find((e) => e.id === id)!;
      assert.equal(event.body.data, stored.body);
      assert.equal(event.body.size, stored.bodySize);
      const bytes = new TextEncoder().encode(event.body.data);
      assert.equal(bytes.length, event.body.size);

      // A big body comes in pieces, and the pieces are the body.
      let joined = "";
      for (let offset: number | undefined = 0; offset !== undefined;) {
        const page = await mcp.call("get_event", { id, body_offset: offset, body_limit: 1000 });
        joined += page.structured!.event.body.data;
        offset = page.structured!.event.body.nextOffset;
        if (offset !== undefined) assert.match(page.text, /The body is cut: 1000 of \d+ bytes/);
      }
      assert.equal(joined, event.body.data);

      // Replay to the app: it receives the same bytes and headers.
      const replayed = await mcp.call("replay", { id, to: `${app.url}/webhooks/github` });
      assert.equal(replayed.isError, false, replayed.text);
      assert.equal(replayed.structured?.sent, 1);
      assert.equal(replayed.structured?.results[0].status, 202);
      assert.equal(replayed.structured?.results[0].body, "thanks from the app");
      assert.equal(app.got.length, 1);
      assert.deepEqual(app.got[0]!.body, bytes);
      assert.equal(app.got[0]!.path, "/webhooks/github");
      assert.equal(app.got[0]!.headers.get("x-hub-signature-256"), header("x-hub-signature-256"));
      // ... and get_event shows that delivery with the app's answer.
      const after = await mcp.call("get_event", { id });
      const target = after.structured!.event.deliveries[0];
      assert.equal(target.state, "delivered");
      assert.equal(target.attempts[0].source, "replay");
      assert.equal(target.attempts[0].status, 202);
      assert.equal(target.attempts[0].body, "thanks from the app");

      // A foreign URL is refused (a payload can steer an agent), and nothing is sent.
      const refused = await mcp.call("replay", { id, to: "https://example.com/hook" });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /Refused to send to https:\/\/example\.com/);
      assert.match(refused.text, /mcp: \{ allowSendTo: \["https:\/\/example\.com"\] \}/);
      const refusedTrigger = await mcp.call("trigger", {
        provider: "github",
        event: "push",
        to: "http://203.0.113.9/x",
      });
      assert.equal(refusedTrigger.isError, true);
      assert.match(refusedTrigger.text, /Refused to send to http:\/\/203\.0\.113\.9/);
      assert.equal(app.got.length, 1);

      // An unknown id is a tool error with the CLI's message, and the server lives on.
      const unknown = await mcp.call("get_event", { id: "evt_20990101_01ZZZZZZZZZZZZZZZZZZZZZZZZ" });
      assert.equal(unknown.isError, true);
      assert.match(unknown.text, /No event with id evt_20990101_01Z+ in \.hooktap\/events\.jsonl/);
      const bad = await mcp.call("search_events", { where: ["a==b=="], since: "yesterday" });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /since must be a duration/);
      const typo = await mcp.call("search_events", { endpoint: "githb" });
      assert.equal(typo.isError, true, "an endpoint the config does not have is refused, as logs does");
      assert.match(typo.text, /no endpoint of that name/);

      // A hostile payload: its bytes come back exact in structuredContent, inert in the text.
      const hostile = '{"x":"\x1b[2J\x1b]0;pwned\x07\u202egnp.exe\u009b31m\x7f"}';
      const res = await fetch(`${dev.url}/raw`, { method: "POST", body: hostile });
      const rawId = (await res.json()).id as string;
      const raw = await mcp.call("get_event", { id: rawId });
      assert.equal(raw.structured!.event.body.data, hostile);
      assert.match(raw.text, /\\u001b\[2J/);

      // search_events lists them, newest first, paged.
      const second = await mcp.call("trigger", { provider: "github", event: "push" });
      const id2: string = second.structured?.deliveries[0].storedEventId;
      const listed = await mcp.call("search_events", { provider: "github" });
      assert.deepEqual(listed.structured?.events.map((e: { id: string }) => e.id), [id2, id]);
      assert.equal(listed.structured?.events[1].verdict, "valid");
      assert.equal(listed.structured?.events[1].type, "push");
      const page1 = await mcp.call("search_events", { limit: 2 });
      assert.deepEqual(page1.structured?.events.map((e: { id: string }) => e.id), [id2, rawId]);
      const page2 = await mcp.call("search_events", { limit: 2, cursor: page1.structured?.nextCursor });
      assert.deepEqual(page2.structured?.events.map((e: { id: string }) => e.id), [id]);
      assert.equal(page2.structured?.nextCursor, undefined);
      const byText = await mcp.call("search_events", { text: "pwned" });
      assert.deepEqual(byText.structured?.events.map((e: { id: string }) => e.id), [rawId]);

      // A bulk replay: every match, oldest first; more than `limit` is refused before anything is sent.
      const tooMany = await mcp.call("replay", { provider: "github", to: `${app.url}/bulk`, limit: 1 });
      assert.equal(tooMany.isError, true);
      assert.match(tooMany.text, /More than 1 stored events match these filters/);
      const before = app.got.length;
      const bulk = await mcp.call("replay", { provider: "github", to: `${app.url}/bulk` });
      assert.equal(bulk.isError, false, bulk.text);
      assert.deepEqual(bulk.structured?.results.map((r: { id: string }) => r.id), [id, id2]);
      assert.equal(bulk.structured?.ok, 2);
      assert.equal(app.got.length, before + 2);

      // Nothing matching arrives: found false at the timeout, with progress meanwhile for a client that asks.
      const beats: string[] = [];
      const none = await mcp.call(
        "wait_for_event",
        { type: "no.such.type", timeout_seconds: 6 },
        (p) => void beats.push(p.message ?? ""),
      );
      assert.equal(none.isError, false, none.text);
      assert.equal(none.structured?.found, false);
      assert.ok(none.structured?.waitedMs >= 6000);
      assert.match(none.text, /No matching event arrived within 6 s/);
      assert.ok(beats.length >= 1 && /^waiting for a matching event/.test(beats[0]!), `progress: ${beats}`);

      // Already stored within `since`: returned at once.
      const recent = await mcp.call("wait_for_event", { endpoint: "raw", since: "5m", timeout_seconds: 1 });
      assert.equal(recent.structured?.event.id, rawId);

      const curl = await mcp.call("export_event", { id, format: "curl" });
      assert.match(curl.structured?.text, new RegExp(`# ${id} .*\\ncurl `));
      const fixture = await mcp.call("export_event", { id, format: "fixture" });
      assert.match(fixture.structured?.text, /hooktap-masked/);
      const doctor = await mcp.call("doctor");
      assert.equal(doctor.isError, false, doctor.text);
      assert.equal(doctor.structured?.checks.find((c: { id: string }) => c.id === "dev").status, "ok");
      const list = await mcp.call("list_triggers", { provider: "github" });
      assert.ok(list.structured?.entries.some((e: { name: string }) => e.name === "push"));

      // Without dev: reading works, waiting and triggering say why they cannot.
      assert.equal(await dev.stop(), 0);
      const waitNoDev = await mcp.call("wait_for_event", { timeout_seconds: 1 });
      assert.equal(waitNoDev.isError, true);
      assert.match(waitNoDev.text, /No `hooktap dev` is running in this directory, so no event can arrive/);
      const triggerNoDev = await mcp.call("trigger", { provider: "github", event: "push" });
      assert.equal(triggerNoDev.isError, true);
      assert.match(triggerNoDev.text, /No `hooktap dev` is running/);
      assert.equal((await mcp.call("get_event", { id })).structured?.event.id, id);
    } finally {
      await app.server.shutdown();
    }
  },
});

const NPM = await which("npm");
const HAS_NODE = NPM !== undefined && await which("node") !== undefined;
const ROOT = new URL("../", import.meta.url).pathname;

/** `cmd args` to completion, with the test's environment (proxies, CAs, npm_config_*) and `path` as PATH. */
async function sh(cmd: string, args: string[], cwd: string, path?: string) {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env: { NO_COLOR: "1", npm_config_update_notifier: "false", ...(path ? { PATH: path } : {}) },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test({
  name:
    "hooktap mcp through the packed npm package: read, get_event exact, unknown id, replay or a clear refusal",
  ignore: !HAS_NODE,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // As tests/install_test.ts does: `deno task pack`, then a global install into a temp prefix.
    await using tmp = await withTmpDir("hooktap_mcp_npm_");
    // Packed into this test's own directory: tests/install_test.ts packs at the same time.
    const packed = await sh(
      Deno.execPath(),
      ["task", "--quiet", "pack", "--out-dir", `${tmp.path}/dist`],
      ROOT,
    );
    assert.equal(packed.code, 0, packed.stderr);
    const version = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).version;
    const prefix = `${tmp.path}/prefix`;
    const install = await sh(NPM!, [
      "install",
      "-g",
      "--prefix",
      prefix,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      `${tmp.path}/dist/hooktap-${version}.tgz`,
    ], tmp.path);
    assert.equal(install.code, 0, install.stderr);
    const hooktap = `${prefix}/bin/hooktap`;
    const project = `${tmp.path}/app`;
    await writeFile(project, "hooktap.config.ts", CONFIG);
    const app = startApp();
    const dev = new Deno.Command(hooktap, {
      args: ["dev", "--port", "0"],
      cwd: project,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    try {
      let err = "";
      const reader = dev.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let port = 0;
      while (port === 0) {
        const { value, done } = await reader.read();
        assert.ok(!done, `dev did not start:\n${err}`);
        err += value;
        port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(err)?.[1] ?? 0);
      }
      void (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })();

      // A GitHub delivery signed with the endpoint's secret, into dev.
      const body = JSON.stringify({ ref: "refs/heads/main", note: "from the npm package test" });
      const res = await fetch(`http://127.0.0.1:${port}/github`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "push",
          "x-hub-signature-256": await sign(SECRET, body),
        },
        body,
      });
      const id = (await res.json()).id as string;

      await using mcp = await connectMcp(hooktap, ["mcp"], project);
      const listed = await mcp.call("search_events", { provider: "github" });
      assert.deepEqual(listed.structured?.events.map((e: { id: string }) => e.id), [id]);
      const got = await mcp.call("get_event", { id });
      assert.equal(got.structured?.event.verdict.status, "valid");
      assert.equal(got.structured?.event.body.data, body);
      const unknown = await mcp.call("get_event", { id: "evt_20990101_01ZZZZZZZZZZZZZZZZZZZZZZZZ" });
      assert.equal(unknown.isError, true);
      assert.match(unknown.text, /No event with id/);

      // Sending needs the network: the launcher grants it to `mcp` once its permission table has the line
      // of changes/mcp-npm-permissions.txt; until then Deno refuses, and the tool says so (never a crash).
      const replayed = await mcp.call("replay", { id, to: `${app.url}/hook` });
      if (replayed.isError) {
        assert.match(
          replayed.text,
          /Requires (write|net) access|runs under Deno's permissions: grant this one/,
        );
        assert.equal(app.got.length, 0);
      } else {
        assert.equal(replayed.structured?.results[0].status, 202);
        assert.deepEqual(app.got[0]!.body, new TextEncoder().encode(body));
      }
      const refused = await mcp.call("replay", { id, to: "https://example.com/hook" });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /Refused to send to https:\/\/example\.com|runs under Deno's permissions/);
    } finally {
      dev.kill("SIGTERM"); // the launcher leaves SIGINT to the terminal's process group; it forwards SIGTERM
      await dev.status;
      await app.server.shutdown();
    }
  },
});
