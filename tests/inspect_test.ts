import assert from "node:assert/strict";
import { join } from "node:path";
import { readEvents, runCli, sha256, withTmpDir } from "./_helpers.ts";
import { captureEvents, uniqueUlidPrefix } from "./_capture.ts";

const READ_ONLY = ["--allow-read=."];

Deno.test("`hooktap inspect ID` shows a JSON event: facts, every header aligned, the body pretty-printed with its exact tokens", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{
    path: "/webhook",
    query: "a=1&b=2",
    headers: [["Content-Type", "application/json"], ["X-Long-Header-Name", "v1"], [
      "X-Long-Header-Name",
      "v2",
    ]],
    body: '{"amount":12345678901234567890,"ok":true,"items":[1.0,{"k":"v"}],"empty":{}}',
  }]);
  const r = await runCli(["inspect", id!], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout;
  assert.match(out, new RegExp(`^${id}\n`));
  assert.match(out, / {2}endpoint {2}default\n/);
  assert.match(out, / {2}request {3}POST \/webhook\?a=1&b=2\n/);
  assert.match(out, / {2}from {6}127\.0\.0\.1\n/);
  // fetch sends header names in lower case; hooktap keeps what arrived.
  assert.match(out, / {2}x-long-header-name {2}v1\n {2}x-long-header-name {2}v2\n/);
  assert.match(out, / {2}content-type {8}application\/json\n/);
  assert.ok(
    out.includes(
      'Body (JSON)\n{\n  "amount": 12345678901234567890,\n  "ok": true,\n  "items": [\n    1.0,\n    {\n      "k": "v"\n    }\n  ],\n  "empty": {}\n}\n',
    ),
    out,
  );
});

Deno.test("`hooktap inspect` decodes a form body into fields and shows text as is", async () => {
  await using tmp = await withTmpDir();
  const [form, text] = await captureEvents(tmp.path, [
    {
      path: "/webhook",
      headers: [["content-type", "application/x-www-form-urlencoded"]],
      body: "name=J%C3%BCrgen+M&token=a%26b&empty=",
    },
    { path: "/github", headers: [["content-type", "text/plain"]], body: "line one\n\tline two\n" },
  ]);
  const f = await runCli(["inspect", form!], { cwd: tmp.path });
  assert.equal(f.code, 0, f.stderr);
  assert.match(f.stdout, /Body \(form fields\)\n {2}name {3}Jürgen M\n {2}token {2}a&b\n {2}empty {2}\n/);
  const t = await runCli(["inspect", text!], { cwd: tmp.path });
  assert.match(t.stdout, /Body \(text\)\nline one\n\tline two\n/);
});

Deno.test("`hooktap inspect` shows a binary body as its size, type and a hex preview, and --body writes its exact bytes", async () => {
  await using tmp = await withTmpDir();
  const bytes = crypto.getRandomValues(new Uint8Array(4096));
  bytes.set([0xff, 0xfe, 0x00, 0x1b, 0x41], 0); // not UTF-8; starts with ESC among others
  const [id] = await captureEvents(tmp.path, [{
    path: "/webhook",
    headers: [["content-type", "application/octet-stream"]],
    body: bytes,
  }]);
  const r = await runCli(["inspect", id!], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /Body \(binary\)\n4\.0 KiB of binary data \(application\/octet-stream\), first bytes:\n00000000 {2}ff fe 00 1b 41 /,
  );
  assert.ok(!r.stdout.includes("\x1b"), "no raw ESC reaches the terminal");
  const raw = await runCli(["inspect", id!, "--body"], { cwd: tmp.path });
  assert.equal(raw.code, 0, raw.stderr);
  assert.equal(await sha256(raw.stdoutBytes), await sha256(bytes));
});

Deno.test("`hooktap inspect --body` reproduces a UTF-8 body byte for byte, BOM and CRLF included", async () => {
  await using tmp = await withTmpDir();
  const body = new TextEncoder().encode('\uFEFF{"a":"é"}\r\n');
  const [id] = await captureEvents(tmp.path, [{
    path: "/webhook",
    headers: [["content-type", "application/json"]],
    body,
  }]);
  const raw = await runCli(["inspect", id!, "--body"], { cwd: tmp.path, permissions: READ_ONLY });
  assert.equal(raw.code, 0, raw.stderr);
  assert.equal(await sha256(raw.stdoutBytes), await sha256(body));
});

Deno.test("`hooktap inspect --json` prints the stored record", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{ path: "/github", body: "x" }]);
  const r = await runCli(["inspect", id!, "--json"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), (await readEvents(tmp.path))[0]);
  assert.equal(r.stdout.split("\n").length, 2);
});

Deno.test("`hooktap inspect` escapes control characters from a payload instead of sending them to the terminal", async () => {
  await using tmp = await withTmpDir();
  const evil = "hi\x1b[2J\x1b]0;pwned\x07\rover\u202Egnp.exe\x9b31m";
  const [text, json] = await captureEvents(tmp.path, [
    { path: "/webhook", headers: [["content-type", "text/plain"]], body: evil },
    {
      path: "/webhook",
      headers: [["content-type", "application/json"]],
      body: JSON.stringify({ s: evil }).replace("\\u001b", "\x1b"),
    },
  ]);
  for (const id of [text!, json!]) {
    const r = await runCli(["inspect", id], { cwd: tmp.path });
    assert.equal(r.code, 0, r.stderr);
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(r.stdout, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/, JSON.stringify(r.stdout));
    assert.ok(r.stdout.includes("\\x1b[2J") || r.stdout.includes("\\u001b[2J"), r.stdout);
  }
  const logs = await runCli(["logs"], { cwd: tmp.path });
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(logs.stdout, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
});

Deno.test("`hooktap inspect --endpoint NAME` shows that endpoint's newest event, found through the index dev wrote", async () => {
  await using tmp = await withTmpDir();
  const ids = await captureEvents(tmp.path, [
    { path: "/github", body: "old" },
    { path: "/github", body: "newest github" },
    { path: "/webhook", body: "a" },
    { path: "/webhook", body: "b" },
  ]);
  const index = JSON.parse(await Deno.readTextFile(join(tmp.path, ".hooktap", "index.json")));
  const size = (await Deno.stat(join(tmp.path, ".hooktap", "events.jsonl"))).size;
  assert.deepEqual(index, { v: 1, size, latest: { github: ids[1], default: ids[3] } });
  const r = await runCli(["inspect", "--endpoint", "github"], { cwd: tmp.path, permissions: READ_ONLY });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^${ids[1]}\n`));
  assert.match(r.stdout, /newest github/);
});

Deno.test("`hooktap inspect --endpoint` names the endpoints that exist for an unknown one, and says when a known one has no events", async () => {
  await using tmp = await withTmpDir();
  await captureEvents(tmp.path, [{ path: "/webhook", body: "a" }]);
  const unknown = await runCli(["inspect", "--endpoint", "stripe"], { cwd: tmp.path });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no endpoint named "stripe"\. Known endpoints: default, github, ping\./);
  const empty = await runCli(["inspect", "--endpoint", "ping"], { cwd: tmp.path });
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /Endpoint "ping" has no events yet/);
});

Deno.test("`hooktap inspect` takes any unique id prefix and lists the matches of an ambiguous one", async () => {
  await using tmp = await withTmpDir();
  const ids = await captureEvents(tmp.path, [
    { path: "/webhook", body: "0" },
    { path: "/webhook", body: "1" },
    { path: "/webhook", body: "2" },
  ]);
  for (const [i, id] of ids.entries()) {
    const ulid = uniqueUlidPrefix(id, ids, 10);
    for (const prefix of [ulid, ulid.toLowerCase(), id.slice(0, 13) + ulid]) {
      const r = await runCli(["inspect", prefix, "--body"], { cwd: tmp.path, permissions: READ_ONLY });
      assert.equal(r.code, 0, `${prefix}: ${r.stderr}`);
      assert.equal(r.stdout, String(i));
    }
  }
  const ambiguous = await runCli(["inspect", ids[0]!.slice(0, 12)], { cwd: tmp.path });
  assert.equal(ambiguous.code, 1);
  assert.match(ambiguous.stderr, /is ambiguous; it matches:/);
  for (const id of ids) assert.ok(ambiguous.stderr.includes(`  ${id}\n`));
  const unknown = await runCli(["inspect", "evt_19990101_0"], { cwd: tmp.path });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /No event with id evt_19990101_0.*Run `hooktap logs`/);
});

Deno.test("`hooktap inspect` still finds events around a corrupt line and after a torn last line, with one warning", async () => {
  await using tmp = await withTmpDir();
  const ids = await captureEvents(tmp.path, [{ path: "/webhook", body: "0" }, {
    path: "/github",
    body: "1",
  }]);
  const file = join(tmp.path, ".hooktap", "events.jsonl");
  const [a, b] = (await Deno.readTextFile(file)).split("\n");
  await Deno.writeTextFile(file, `${a}\n{"v":1,"id":"evt_2\u0000garbage\n${b}\n{"v":1,"id":"evt_20`);
  await Deno.remove(join(tmp.path, ".hooktap", "index.json"));
  const r = await runCli(["inspect", "--endpoint", "default", "--body"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "0");
  assert.equal(r.stderr.match(/warning/g)?.length, 1);
  assert.match(r.stderr, /skipped 2 damaged lines/);
  const byId = await runCli(["inspect", ids[1]!, "--body"], { cwd: tmp.path });
  assert.equal(byId.stdout, "1");
});
