/**
 * Every option honoured or refused: the edge values and combinations an audit of each command's options
 * found taken silently, or failing without a message. Each runs the real CLI in a temp dir.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { logText, makeEvents } from "./_store_fixture.ts";

const CONFIG = `export default { port: 0, endpoints: [
  { name: "a", path: "/a", method: "POST" },
  { name: "b", path: "/b", method: "POST" },
] };\n`;

/** A project with `count` stored events (endpoints a and b, one second apart, ending a minute ago). */
async function project(dir: string, count = 6): Promise<string> {
  await writeFile(dir, "hooktap.config.ts", CONFIG);
  const start = new Date(Date.now() - 60_000 - count * 1000);
  const log = logText(makeEvents(count, { endpoints: ["a", "b"], start }));
  await writeFile(dir, ".hooktap/events.jsonl", log);
  return log;
}

const logOf = (dir: string) => Deno.readTextFile(join(dir, ".hooktap/events.jsonl"));

Deno.test("prune --keep 0 and --older-than 0s are refused (they removed every event unasked), naming rm --all; nothing removed", async () => {
  await using tmp = await withTmpDir();
  const log = await project(tmp.path);
  const r = await runCli(["prune", "--keep", "0"], { cwd: tmp.path });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--keep must be a whole number of at least 1 .*hooktap rm --all.*got "0"/);
  const age = await runCli(["prune", "--older-than", "0s"], { cwd: tmp.path });
  assert.equal(age.code, 2, age.stderr);
  assert.match(age.stderr, /--older-than must be a duration above 0 .*got "0s"/);
  assert.equal(await logOf(tmp.path), log);
});

Deno.test("trigger --secret '' (an unset variable expanded) is a usage error, not a crash", async () => {
  await using tmp = await withTmpDir();
  const r = await runCli(
    ["trigger", "github", "push", "--to", "http://127.0.0.1:9/hook", "--secret", ""],
    { cwd: tmp.path },
  );
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--secret is empty: give the secret/);
  assert.doesNotMatch(r.stderr, /unexpectedly|DataError/);
});

Deno.test("a single-value option given twice with different values is refused (logs -e a -e b listed only b)", async () => {
  await using tmp = await withTmpDir();
  await project(tmp.path);
  const r = await runCli(["logs", "-e", "a", "--endpoint", "b"], { cwd: tmp.path });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /--endpoint was given twice, as "a" and as "b": it takes one value\. Give it once\./,
  );
  assert.equal(r.stdout, "");
});

Deno.test("filter values no event can match are refused with the fix, in logs, export and replay alike", async () => {
  await using tmp = await withTmpDir();
  await project(tmp.path);
  const cases: [string[], RegExp][] = [
    [
      ["--filter-method", "BAD M"],
      /^error: --filter-method must be an HTTP method like POST or GET, got "BAD M"\.$/,
    ],
    [["-m", ""], /--filter-method must be an HTTP method/],
    [["--grep", ""], /^error: --grep is empty: give what to look for, or leave --grep out\.$/],
    [["--type", ""], /^error: --type is empty/],
    [["--path", ""], /^error: --path is empty/],
    [["--path", "a"], /^error: --path must start with "\/" .*got "a": use "\/a"\.$/],
    [
      ["--since", "1m", "--until", "1h"],
      /^error: --since \S+ is not before --until \S+, so no event is in between/,
    ],
    [["--has-header", "=x"], /^error: --has-header must look like Name=value or Name/],
    [["--provider", ""], /^error: --provider must name a provider, got ""\. Known: /],
  ];
  for (const command of [["logs"], ["export"], ["replay", "--to", "http://127.0.0.1:9/"]]) {
    for (const [flags, message] of cases) {
      if (command[0] === "replay" && flags[0] === "--path") continue; // replay has no --path
      const r = await runCli([...command, ...flags], { cwd: tmp.path });
      assert.equal(r.code, 2, `${[...command, ...flags].join(" ")}: ${r.stderr}`);
      assert.match(r.stderr.trim(), message, [...command, ...flags].join(" "));
      assert.equal(r.stdout, "");
    }
  }
  // Their good forms still work: -m in any case, a path with its "/", --since before --until.
  const ok = await runCli([
    "logs",
    "--json",
    "-m",
    "post",
    "--path",
    "/webhook",
    "--since",
    "1d",
    "--until",
    "1m",
  ], {
    cwd: tmp.path,
  });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout.trim().split("\n").length, 4); // makeEvents: every third is a PUT
});

Deno.test("logs --unmatched honours --count, --until and --path, and refuses the filters it cannot apply", async () => {
  await using tmp = await withTmpDir();
  await project(tmp.path);
  const old = new Date(Date.now() - 3 * 3600_000).toISOString();
  const now = new Date().toISOString();
  await writeFile(
    tmp.path,
    ".hooktap/unmatched.jsonl",
    [
      { time: old, method: "GET", path: "/nope", query: "", status: 404 },
      { time: now, method: "PUT", path: "/a", query: "", status: 405, allow: ["POST"] },
      { time: now, method: "POST", path: "/hooks/x", query: "", status: 404 },
    ].map((e) => JSON.stringify(e) + "\n").join(""),
  );
  const count = await runCli(["logs", "-u", "--count"], { cwd: tmp.path });
  assert.equal(count.code, 0, count.stderr);
  assert.equal(count.stdout, "3\n"); // was the list, --count ignored
  const until = await runCli(["logs", "-u", "--json", "--until", "1h"], { cwd: tmp.path });
  assert.deepEqual(until.stdout.trim().split("\n").map((l) => JSON.parse(l).path), ["/nope"]);
  const path = await runCli(["logs", "-u", "--json", "--path", "/hooks/*"], { cwd: tmp.path });
  assert.deepEqual(path.stdout.trim().split("\n").map((l) => JSON.parse(l).path), ["/hooks/x"]);
  const none = await runCli(["logs", "-u", "--path", "/zzz"], { cwd: tmp.path });
  assert.equal(none.stderr, "No unmatched requests match these filters.\n");
  for (
    const flags of [["-e", "a"], ["--grep", "x"], ["--verdict", "valid"], ["--follow"], ["--where", "a=1"]]
  ) {
    const r = await runCli(["logs", "-u", ...flags], { cwd: tmp.path });
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /^error: --[a-z-]+ does not apply to --unmatched: .*Leave --[a-z-]+ out/);
    assert.equal(r.stdout, "");
  }
});

Deno.test("init --config refuses a name that is no TypeScript file (it wrote TS into x.json) and a folder", async () => {
  await using tmp = await withTmpDir();
  const json = await runCli(["init", "--yes", "--config", "x.json"], { cwd: tmp.path });
  assert.equal(json.code, 2, json.stderr);
  assert.match(
    json.stderr,
    /--config must name a file ending in \.ts .*got "x\.json": use hooktap init --yes --config x\.ts\./,
  );
  await Deno.mkdir(join(tmp.path, "conf.ts"));
  const folder = await runCli(["init", "--yes", "--force", "--config", "conf.ts"], { cwd: tmp.path });
  assert.equal(folder.code, 2, folder.stderr);
  assert.match(
    folder.stderr,
    /^error: conf\.ts is a folder: .*hooktap init --config conf\.ts\/hooktap\.config\.ts\./,
  );
  assert.deepEqual([...Deno.readDirSync(tmp.path)].map((e) => e.name), ["conf.ts"]); // nothing written
  const mts = await runCli(["init", "--yes", "--config", "x.mts"], {
    cwd: tmp.path,
    permissions: ["--allow-read=.", "--allow-write=."],
  });
  assert.equal(mts.code, 0, mts.stderr);
});

Deno.test("a --config that is no module (hooktap.json) is a config error naming the file and the fix", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.json", `{"port": 8787}`);
  const r = await runCli(["logs", "--config", "hooktap.json"], { cwd: tmp.path });
  assert.equal(r.code, 78, r.stderr);
  assert.match(
    r.stderr,
    /^error: Config file \S+hooktap\.json is not a TypeScript or JavaScript module: .*end in \.ts/,
  );
  assert.match(r.stderr, /hooktap init --yes/);
  assert.doesNotMatch(r.stderr, /import attribute|"type": "json"/);
});

Deno.test("logs --count refuses -n (it counts the whole log; -n was ignored)", async () => {
  await using tmp = await withTmpDir();
  await project(tmp.path);
  const r = await runCli(["logs", "--count", "-n", "2"], { cwd: tmp.path });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--count and --limit cannot be given together/);
  assert.equal((await runCli(["logs", "--count"], { cwd: tmp.path })).stdout, "6\n");
});

Deno.test("rm says which events it removed (it said only how many were kept), in text and --json", async () => {
  await using tmp = await withTmpDir();
  await project(tmp.path);
  const ids = (await logOf(tmp.path)).trim().split("\n").map((l) => JSON.parse(l).id as string);
  const r = await runCli(["rm", ids[1]!, ids[2]!.slice(13), "--yes"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(`^Removed ${ids[1]}, ${ids[2]}; 4 events kept \\(.+\\), .+ freed\\.\\n$`),
  );
  const json = await runCli(["rm", ids[3]!, "--yes", "--json"], { cwd: tmp.path });
  assert.deepEqual(JSON.parse(json.stdout).removed, [ids[3]]);
  const left = (await logOf(tmp.path)).trim().split("\n").map((l) => JSON.parse(l).id);
  assert.deepEqual(left, [ids[0], ids[4], ids[5]]); // exactly those, no more
  const all = await runCli(["rm", "--all", "--yes"], { cwd: tmp.path });
  assert.match(all.stdout, /^Removed every event: 0 events kept/);
});

Deno.test("hub serve refuses an empty --admin-token (it served with 'admin API on' that no token could open)", async () => {
  await using tmp = await withTmpDir();
  const permissions = ["--allow-net=127.0.0.1", "--allow-read=.", "--allow-write=."];
  const empty = await runCli(["hub", "serve", "--port", "0", "--admin-token", ""], {
    cwd: tmp.path,
    permissions,
    timeoutMs: 15_000,
  });
  assert.equal(empty.timedOut, undefined, "it started serving");
  assert.equal(empty.code, 2, empty.stderr);
  assert.match(empty.stderr, /--admin-token is empty: a token is one word/);
  const spaced = await runCli([
    "hub",
    "clients",
    "--hub",
    "http://127.0.0.1:9",
    "--channel",
    "c",
    "--token",
    "a b",
  ], {
    cwd: tmp.path,
    permissions,
  });
  assert.equal(spaced.code, 2, spaced.stderr);
  assert.match(spaced.stderr, /--token holds a space/);
  const host = await runCli(["hub", "serve", "--port", "0", "--host", ""], { cwd: tmp.path, permissions });
  assert.equal(host.code, 2, host.stderr);
  assert.match(host.stderr, /--host must be an interface to bind, an address or a host name/);
});

Deno.test("dev --host refuses what no interface is ('' bound nothing and exited 1; a URL or a port is a typo)", async () => {
  await using tmp = await withTmpDir();
  for (const value of ["", "http://0.0.0.0", ":8787", "0.0.0.0:8787", "a b"]) {
    const result = await runCli(["dev", "--port", "0", "--host", value], { cwd: tmp.path });
    assert.equal(result.code, 2, `${value}: ${result.stderr}`);
    assert.match(
      result.stderr,
      /--host must be an interface to bind, an address or a host name like 127\.0\.0\.1, 0\.0\.0\.0 or ::1/,
    );
  }
  await using dev = await startDev(tmp.path, ["--host", "localhost"]);
  assert.match(dev.stderr(), /bound to 127\.0\.0\.1/);
});

Deno.test("doctor --config OTHER while dev runs does not promise that dev reloads that file (it watches its own)", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await writeFile(tmp.path, "other.ts", "export default { port: 0, endpoints: [] };\n");
  await using dev = await startDev(tmp.path);
  const other = await runCli(["doctor", "--config", "other.ts"], { cwd: tmp.path });
  assert.equal(other.code, 1, other.stderr);
  assert.doesNotMatch(other.stdout, /the running dev reloads it|keeps serving its last good config/);
  assert.match(other.stdout, /the running dev serves its own config, not this file/);
  assert.match(
    other.stdout,
    /the running dev does not read this file: restart it with hooktap dev --config other\.ts/,
  );
  // Its own file, broken: the running dev does reload that one.
  await writeFile(tmp.path, "hooktap.config.ts", "export default { port: 0, endpoints: [] };\n");
  const own = await runCli(["doctor"], { cwd: tmp.path });
  assert.match(own.stdout, /then save: the running dev reloads it/);
  assert.equal(await dev.stop(), 0);
});

Deno.test("trigger --list refuses an event and the options of a send (it listed everything and ignored them)", async () => {
  await using tmp = await withTmpDir();
  const event = await runCli(["trigger", "--list", "github", "push"], { cwd: tmp.path });
  assert.equal(event.code, 2, event.stderr);
  assert.match(
    event.stderr,
    /--list lists every event of a provider, so it takes no event \("push"\): run hooktap trigger --list github/,
  );
  assert.equal(event.stdout, "");
  const to = await runCli(["trigger", "--list", "--to", "http://127.0.0.1:9/"], { cwd: tmp.path });
  assert.equal(to.code, 2, to.stderr);
  assert.match(to.stderr, /--list only lists \(it sends nothing\), so --to has no effect with it/);
  const json = await runCli(["trigger", "--list", "github", "--json"], { cwd: tmp.path });
  assert.equal(json.code, 0, json.stderr);
  assert.ok(json.stdout.trim().split("\n").every((l) => JSON.parse(l).provider === "github"));
});

Deno.test("completion offers provider names for --provider (it offered nothing)", async () => {
  await using tmp = await withTmpDir();
  for (const command of ["logs", "export", "replay"]) {
    const r = await runCli(["complete", "--", command, "--provider", "st"], { cwd: tmp.path });
    assert.equal(r.code, 0, r.stderr);
    const values = r.stdout.trim().split("\n").map((l) => l.split("\t")[0]);
    assert.ok(values.includes("stripe") && values.includes("standard-webhooks"), `${command}: ${r.stdout}`);
    assert.ok(values.every((v) => v!.startsWith("st")), r.stdout);
  }
});

Deno.test("--version refuses words after it, --help names a command's help, and help takes one command", async () => {
  await using tmp = await withTmpDir();
  const version = await runCli(["-V", "logs"], { cwd: tmp.path });
  assert.equal(version.code, 2, version.stderr);
  assert.match(version.stderr, /-V prints the version and takes nothing after it, got "logs"/);
  const help = await runCli(["--help", "logs"], { cwd: tmp.path });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: hooktap logs \[options\]/); // was the program's help
  const extra = await runCli(["help", "logs", "extra"], { cwd: tmp.path });
  assert.equal(extra.code, 2, extra.stderr);
  assert.match(extra.stderr, /help takes one command at most, got "logs extra": hooktap help logs\./);
});

Deno.test("inspect -e default without a config knows the starter config's endpoint (it said there is none)", async () => {
  await using tmp = await withTmpDir();
  const r = await runCli(["inspect", "-e", "default"], { cwd: tmp.path });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /^error: Endpoint "default" has no events yet\. Send one to it while `hooktap dev` runs/,
  );
  const typo = await runCli(["inspect", "-e", "defualt"], { cwd: tmp.path });
  assert.equal(typo.code, 2, typo.stderr);
  assert.match(typo.stderr, /did you mean "default"\? Known endpoints: default\./);
});

Deno.test("completion offers hub's sub-actions of the action typed (channel offered rotate and revoke)", async () => {
  await using tmp = await withTmpDir();
  const offered = async (action: string) =>
    (await runCli(["complete", "--", "hub", action, ""], { cwd: tmp.path })).stdout.trim().split("\n")
      .filter((l) => l !== "").map((l) => l.split("\t")[0]);
  assert.deepEqual(await offered("channel"), ["create", "rm"]);
  assert.deepEqual(await offered("clients"), ["rm"]);
  assert.deepEqual(await offered("token"), ["rotate", "revoke"]);
  assert.deepEqual(await offered("serve"), []);
});
