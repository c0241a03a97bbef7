/**
 * Issue 9, "a new user's first hour": what a person sees in a real terminal
 * (layout, payload bytes) and what the read commands say when there is
 * nothing to show.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { captureEvents } from "./_capture.ts";
import { runCli, withTmpDir, writeFile } from "./_helpers.ts";
import { HAS_SCRIPT, plainLines, runInPty, startInPty } from "./_pty.ts";
import { displayWidth } from "../src/term/width.ts";

const WIDE_CONFIG = `export default {
  port: 0,
  maxBodySize: 40 * 1024 * 1024,
  endpoints: [
    { name: "shopify-orders-create", path: "/webhooks/shopify/orders/create", method: ["POST", "PUT"] },
    { name: "default", path: "/webhook", method: "POST" },
  ],
};
`;

const LONG_TYPE = "application/vnd.github.machine-man-preview+json; charset=utf-8";

async function wideStore(dir: string): Promise<string[]> {
  return await captureEvents(dir, [
    {
      path: "/webhooks/shopify/orders/create",
      query: "shop=my-very-long-shop-name.myshopify.com&topic=orders%2Fcreate",
      headers: [["content-type", LONG_TYPE]],
      body: `{"id":1}`,
    },
    { path: "/webhook", headers: [["content-type", "application/json"]], body: `{"hello":"world"}` },
    { path: "/webhook", body: new Uint8Array(30 * 1024 * 1024 + 5) },
  ], WIDE_CONFIG);
}

function assertFits(lines: string[], columns: number, what: string): void {
  for (const line of lines) {
    assert.ok(
      displayWidth(line) <= columns,
      `${what}: ${displayWidth(line)} > ${columns}: ${JSON.stringify(line)}`,
    );
  }
}

Deno.test({
  name: "logs rows fit 80- and 120-column terminals without wrapping, the id always shown",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using tmp = await withTmpDir();
    const ids = await wideStore(tmp.path);
    for (const columns of [80, 120]) {
      const r = await runInPty(["logs"], { cwd: tmp.path, columns });
      assert.equal(r.code, 0, r.screen);
      const rows = plainLines(r.screen).filter((l) => l.includes("evt_"));
      assert.equal(rows.length, 3, r.screen);
      assertFits(rows, columns, `logs at ${columns}`);
      for (const id of ids) assert.ok(rows.some((row) => row.includes(id)), `${id} at ${columns}`);
    }
    // Sizes use binary units, like maxBodySize: a 30 MiB body is "30.0 MiB", not "31.5 MB".
    const wide = await runInPty(["logs"], { cwd: tmp.path, columns: 200 });
    assert.match(wide.screen, /30\.0 MiB/);
    assert.match(wide.screen, /shop=my-very-long-shop-name/);
    // A pipe gets every column whole.
    const piped = await runCli(["logs"], { cwd: tmp.path });
    assert.ok(piped.stdout.includes(LONG_TYPE.split(";")[0]!), piped.stdout);
  },
});

Deno.test({
  name: "dev's banner is aligned, and its request lines show the query and fit the terminal",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", WIDE_CONFIG);
    await using dev = startInPty(["dev", "--port", "0"], { cwd: tmp.path, columns: 80 });
    await dev.waitFor(/Press Ctrl-C to stop/);
    const port = plainLines(dev.screen()).join("\n").match(/listening on http:\/\/localhost:(\d+)/)![1];
    const base = `http://127.0.0.1:${port}`;
    await (await fetch(`${base}/webhook?x=1&y=two`, { method: "POST", body: "{}" })).body?.cancel();
    await (await fetch(`${base}/nope/that/is/quite/long/really`, { method: "POST", body: "x" })).body
      ?.cancel();
    await dev.waitFor(/nope\/that/);
    await dev.type("\x03");
    assert.equal(await dev.exited(), 0);
    const lines = plainLines(dev.screen());
    const banner = lines.filter((l) => /^ {2}(POST|PUT)/.test(l));
    assert.equal(banner.length, 2, dev.screen());
    assert.equal(banner[0]!.indexOf("http://"), banner[1]!.indexOf("http://"), "URLs line up");
    assert.equal(banner[0]!.indexOf("("), banner[1]!.indexOf("("), "names line up");
    const requests = lines.filter((l) => /^\d\d:\d\d:\d\d {2}/.test(l));
    assert.equal(requests.length, 2, dev.screen());
    assert.match(requests[0]!, /POST +\/webhook\?x=1&y\S* +200 +default +[0-9A-Z]{26}$/);
    assert.match(requests[1]!, /404 +no endpoint here/);
    assertFits(requests, 80, "dev lines");
  },
});

Deno.test({
  name:
    "inspect --body refuses control characters and binary data on a terminal; --force or a pipe gets the bytes",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using tmp = await withTmpDir();
    const hostile = "title\x1b]0;PWNED\x07\x1b[2J";
    const [escId, binId, textId] = await captureEvents(tmp.path, [
      { path: "/webhook", body: hostile },
      { path: "/webhook", body: new Uint8Array([0, 159, 146, 150, 255]) },
      { path: "/webhook", body: "plain text\nsecond line\n" },
    ]);
    const esc = await runInPty(["inspect", escId!, "--body"], { cwd: tmp.path });
    assert.equal(esc.code, 1);
    assert.ok(!esc.screen.includes("\x1b]0;PWNED"), "no raw escape sequence reached the terminal");
    assert.match(esc.screen, /Not writing the body of .* to the terminal: it holds ESC at character 6/);
    assert.match(esc.screen, /--body > body\.bin/);
    const bin = await runInPty(["inspect", binId!, "--body"], { cwd: tmp.path });
    assert.equal(bin.code, 1);
    assert.match(bin.screen, /it is binary data/);
    const text = await runInPty(["inspect", textId!, "--body"], { cwd: tmp.path });
    assert.equal(text.code, 0);
    assert.equal(text.screen, "plain text\nsecond line\n");
    const forced = await runInPty(["inspect", escId!, "--body", "--force"], { cwd: tmp.path });
    assert.equal(forced.code, 0);
    assert.ok(forced.screen.includes("\x1b]0;PWNED\x07"), "--force writes the raw bytes");
    const piped = await runCli(["inspect", escId!, "--body"], { cwd: tmp.path });
    assert.equal(piped.code, 0);
    assert.equal(piped.stdout, hostile);
  },
});

Deno.test({
  name: "inspect's view ends with a newline on a terminal, so the prompt starts on its own line",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using tmp = await withTmpDir();
    const [id] = await captureEvents(tmp.path, [
      { path: "/webhook", headers: [["content-type", "application/json"]], body: `{"a":[1,{"b":"c"}]}` },
    ]);
    const r = await runInPty(["inspect", id!], { cwd: tmp.path });
    assert.equal(r.code, 0);
    assert.ok(r.screen.endsWith("}\n"), JSON.stringify(r.screen.slice(-20)));
  },
});

Deno.test("logs -n 0 is a usage error (exit 2), not an empty answer; --provider naming no provider too", async () => {
  await using tmp = await withTmpDir();
  await captureEvents(tmp.path, [{ path: "/webhook", body: "a" }]);
  const r = await runCli(["logs", "-n", "0"], { cwd: tmp.path });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /-n 0 lists no event: give -n 1 or more \(or -n 0 --follow/);
  assert.doesNotMatch(r.stderr, /No events yet/);
  const unmatched = await runCli(["logs", "--unmatched", "-n", "0"], { cwd: tmp.path });
  assert.equal(unmatched.code, 2, unmatched.stderr);
  const nope = await runCli(["logs", "--provider", "strpe"], { cwd: tmp.path });
  assert.equal(nope.code, 2, nope.stderr);
  assert.equal(nope.stdout, "");
  assert.match(
    nope.stderr,
    /--provider must name a provider, got "strpe": did you mean stripe\? Known: github, /,
  );
  // An alias filters by the name events carry.
  const alias = await runCli(["logs", "--provider", "svix", "--count"], { cwd: tmp.path });
  assert.equal(alias.code, 0, alias.stderr);
});

Deno.test("logs and inspect name the known endpoints when --endpoint names none", async () => {
  await using tmp = await withTmpDir();
  await captureEvents(tmp.path, [{ path: "/webhook", body: "a" }]);
  const logs = await runCli(["logs", "--endpoint", "nope"], { cwd: tmp.path });
  assert.equal(logs.code, 2, logs.stderr); // a usage error, as the docs say
  assert.match(logs.stderr, /There is no endpoint named "nope"\. Known endpoints: default, github, ping\./);
  const known = await runCli(["logs", "--endpoint", "github"], { cwd: tmp.path });
  assert.equal(known.code, 0);
  assert.match(known.stderr, /No stored events match these filters/);
});

Deno.test('logs and inspect ask "did you mean" for an endpoint name off by case or a typo', async () => {
  await using tmp = await withTmpDir();
  await captureEvents(tmp.path, [{ path: "/webhook", body: "a" }]);
  const logs = await runCli(["logs", "--endpoint", "Github"], { cwd: tmp.path });
  assert.equal(logs.code, 2, logs.stderr);
  assert.match(logs.stderr, /no endpoint named "Github": did you mean "github"\? Known endpoints:/);
  const inspect = await runCli(["inspect", "--endpoint", "defualt"], { cwd: tmp.path });
  assert.equal(inspect.code, 2, inspect.stderr);
  assert.match(inspect.stderr, /no endpoint named "defualt": did you mean "default"\? Known endpoints:/);
});

Deno.test("with a config that does not load, logs and inspect report its problem, not a starter hint", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 1, endpoints: [{ name: "x", path: "github", method: "POST" }] };\n`,
  );
  const logs = await runCli(["logs"], { cwd: tmp.path });
  assert.equal(logs.code, 0);
  assert.match(
    logs.stderr,
    /The config does not load, so `hooktap dev` cannot start: .*path must be a string starting with "\/", got "github": use "\/github"/,
  );
  assert.doesNotMatch(logs.stderr, /curl/);
  const inspect = await runCli(["inspect", "--endpoint", "github"], { cwd: tmp.path });
  assert.equal(inspect.code, 2);
  assert.match(inspect.stderr, /no endpoint named "github" \(the config does not load/);
  assert.doesNotMatch(inspect.stderr, /No endpoints are configured/);
});

Deno.test("in a directory without .hooktap, logs and inspect say where events would be and how to start", async () => {
  await using tmp = await withTmpDir();
  const logs = await runCli(["logs"], { cwd: tmp.path });
  assert.equal(logs.code, 0);
  assert.match(
    logs.stderr,
    /there is no \.hooktap\/ in .*hooktap stores events in \.hooktap\/events\.jsonl of the directory where `hooktap dev` runs/,
  );
  assert.match(logs.stderr, /curl -X POST http:\/\/localhost:8787\/webhook/);
  const inspect = await runCli(["inspect"], { cwd: tmp.path });
  assert.equal(inspect.code, 1);
  assert.match(inspect.stderr, /there is no \.hooktap\//);
  await Deno.mkdir(join(tmp.path, ".hooktap"));
  const empty = await runCli(["logs"], { cwd: tmp.path });
  assert.match(empty.stderr, /^No events yet\.\nStart `hooktap dev`/);
});

Deno.test({
  name:
    "cancelling init says so once, writes nothing and exits 130; its path question suggests the same path with a slash",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using tmp = await withTmpDir();
    const env = { NO_COLOR: "1" };
    {
      await using init = startInPty(["init"], { cwd: tmp.path, permissions: ["-A"], env });
      await init.waitFor(/Port to listen on/);
      await init.type("\x03");
      assert.equal(await init.exited(), 130);
      assert.equal(init.screen().match(/cancelled/gi)?.length, 1, init.screen());
      assert.doesNotMatch(init.screen(), /error:/);
    }
    await assert.rejects(Deno.stat(join(tmp.path, "hooktap.config.ts")));
    await using again = startInPty(["init"], { cwd: tmp.path, permissions: ["-A"], env });
    await again.waitFor(/Port to listen on/);
    await again.type("\r");
    await again.waitFor(/Endpoint name/);
    await again.type("\r");
    await again.waitFor(/Endpoint path/);
    const from = again.screen().length;
    await again.type("github\r");
    await again.waitFor(/The path must be a string starting with "\/", got "github": use\s+"\/github"/, from);
    await again.type("\x03");
    assert.equal(await again.exited(), 130);
  },
});
