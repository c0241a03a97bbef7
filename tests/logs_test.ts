import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs, readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { captureEvents, MULTI_CONFIG } from "./_capture.ts";

const JSON_HEADERS: [string, string][] = [["content-type", "application/json"]];

async function threeEvents(dir: string): Promise<string[]> {
  return await captureEvents(dir, [
    { path: "/webhook", headers: JSON_HEADERS, body: '{"n":1}' },
    {
      path: "/github",
      query: "x=1",
      headers: [["content-type", "text/plain; charset=utf-8"]],
      body: "hello",
    },
    { path: "/ping", method: "GET" },
  ]);
}

Deno.test("`hooktap logs` lists the stored events oldest first, one line each with time, id, endpoint, method, path, type and size", async () => {
  await using tmp = await withTmpDir();
  const ids = await threeEvents(tmp.path);
  const r = await runCli(["logs"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 3);
  assert.deepEqual(lines.map((l) => l.match(/evt_\S+/)?.[0]), ids);
  assert.match(
    lines[0]!,
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}evt_\S+ {2}default\s+POST\s+\/webhook\s+application\/json\s+7 B$/,
  );
  assert.match(lines[1]!, /github\s+POST\s+\/github\?x=1\s+text\/plain\s+5 B$/);
  assert.match(lines[2]!, /ping\s+GET\s+\/ping\s+-\s+0 B$/);
  assert.equal(r.stderr, "");
});

Deno.test("`hooktap logs` filters with -n, --endpoint, --filter-method and --since", async () => {
  await using tmp = await withTmpDir();
  const ids = await threeEvents(tmp.path);
  const idsOf = (out: string) => out.match(/evt_\S+/g) ?? [];
  assert.deepEqual(idsOf((await runCli(["logs", "-n", "2"], { cwd: tmp.path })).stdout), ids.slice(1));
  assert.deepEqual(idsOf((await runCli(["logs", "--endpoint", "github"], { cwd: tmp.path })).stdout), [
    ids[1],
  ]);
  assert.deepEqual(idsOf((await runCli(["logs", "--filter-method", "get"], { cwd: tmp.path })).stdout), [
    ids[2],
  ]);
  assert.deepEqual(idsOf((await runCli(["logs", "--since", "1h"], { cwd: tmp.path })).stdout), ids);
  const future = await runCli(["logs", "--since", "2999-01-01T00:00:00Z"], { cwd: tmp.path });
  assert.equal(future.code, 0);
  assert.equal(future.stdout, "");
  assert.match(future.stderr, /No stored events match these filters/);
  const bad = await runCli(["logs", "--since", "yesterday"], { cwd: tmp.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since must be a duration/);
});

Deno.test("`hooktap logs --json` prints exactly the stored records as JSON Lines and nothing else", async () => {
  await using tmp = await withTmpDir();
  await threeEvents(tmp.path);
  const r = await runCli(["logs", "--json"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const printed = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(printed, await readEvents(tmp.path));
});

Deno.test("`hooktap logs` without any events prints a ready curl command for the configured endpoint and exits 0", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    'export default { port: 9123, endpoints: [{ name: "in", path: "/hooks/in", method: "PUT" }] };\n',
  );
  const r = await runCli(["logs"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /No events yet/);
  assert.match(r.stderr, /curl -X PUT http:\/\/localhost:9123\/hooks\/in /);
});

Deno.test("`hooktap logs` without events, on a config with port 0 and no dev running, names no port it cannot know", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    'export default { port: 0, endpoints: [{ name: "in", path: "/hooks/in", method: "POST" }] };\n',
  );
  const r = await runCli(["logs"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /then send one \(PORT: the one it prints; the config's port is 0, any free one\):/);
  assert.match(r.stderr, /curl -X POST http:\/\/localhost:PORT\/hooks\/in /);
  assert.doesNotMatch(r.stderr, /8787/); // it said localhost:8787, where nothing listens
});

Deno.test("`hooktap logs` without events while dev runs sends the curl to dev's own port, not the config's", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    'export default { port: 9123, endpoints: [{ name: "in", path: "/hooks/in", method: "PUT" }] };\n',
  );
  await using dev = await startDev(tmp.path); // --port 0: another port than the config's 9123
  for (const command of ["logs", "inspect"]) {
    const r = await runCli([command], { cwd: tmp.path });
    assert.equal(r.code, command === "logs" ? 0 : 1, r.stderr);
    assert.match(r.stderr, new RegExp(`\`hooktap dev\` is running here on port ${dev.port}; send one:`));
    assert.match(r.stderr, new RegExp(`curl -X PUT http://localhost:${dev.port}/hooks/in `));
    assert.doesNotMatch(r.stderr, /Start `hooktap dev`|9123/);
  }
});

Deno.test("`hooktap logs --follow` prints an event that hooktap dev stores after it started", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", MULTI_CONFIG);
  await using dev = await startDev(tmp.path);
  const send = async (body: string) => {
    const res = await fetch(`${dev.url}/webhook`, { method: "POST", body });
    await res.body?.cancel();
    return res.headers.get("x-hooktap-event-id")!;
  };
  const first = await send("one");
  const follow = new Deno.Command(Deno.execPath(), {
    args: cliArgs(["--allow-read=."], ["logs", "-f", "--json"]),
    cwd: tmp.path,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const out = { text: "" };
  const pump = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of follow.stdout) out.text += dec.decode(chunk, { stream: true });
  })();
  const waitFor = async (needle: string) => {
    const deadline = Date.now() + 15_000;
    while (!out.text.includes(needle)) {
      if (Date.now() > deadline) throw new Error(`follow never printed ${needle}; got:\n${out.text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await waitFor(first);
    const second = await send("two");
    await waitFor(second);
    const lines = out.text.trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((e) => [e.id, e.body]), [[first, "one"], [second, "two"]]);
  } finally {
    follow.kill("SIGINT");
    const status = await follow.status;
    await pump;
    await follow.stderr.cancel();
    assert.equal(status.code, 0);
  }
});

Deno.test("`hooktap logs` skips a corrupt middle line and a torn last line with one warning that counts them", async () => {
  await using tmp = await withTmpDir();
  const ids = await threeEvents(tmp.path);
  const file = join(tmp.path, ".hooktap", "events.jsonl");
  const lines = (await Deno.readTextFile(file)).split("\n");
  lines.splice(1, 0, '{"v":1,"id":"evt_20240101_01HX this is not json');
  await Deno.writeTextFile(file, lines.join("\n") + '{"v":1,"id":"evt_2099'); // torn: no newline
  const r = await runCli(["logs"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.match(/evt_\S+/g), ids);
  assert.equal(r.stderr.match(/warning/g)?.length, 1);
  assert.match(r.stderr, /skipped 2 damaged lines/);
});
