/**
 * What `hooktap hub serve` refuses, with the real CLI in a temp directory:
 * a public URL channel URLs cannot be built on, a port it cannot bind
 * (leaving nothing behind), a GET that announces a body, a channel request
 * whose body is not JSON.
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir } from "./_helpers.ts";
import { createChannel, startHub } from "./_hub.ts";
import { HttpConn } from "./fault/_http.ts";
import type { WirePoll } from "../src/hub/wire.ts";

const SERVE = ["--allow-net", "--allow-read", "--allow-write", "--allow-env"];

Deno.test("hub serve: a --public-url with a query, a fragment, credentials or another scheme is refused (exit 2)", async () => {
  await using tmp = await withTmpDir();
  for (
    const [url, why] of [
      ["https://hub.example.com/p?q=1#frag", /it has a query/],
      ["https://hub.example.com/p#frag", /it has a fragment/],
      ["https://hub.example.com/p?", /it has a query/],
      ["https://me:pw@hub.example.com", /user name or password/],
      ["ftp://hub.example.com", /its scheme is ftp:/],
      ["javascript:alert(1)", /its scheme is javascript:/],
      ["hub.example.com", /must be an http\(s\) URL/],
    ] as const
  ) {
    const r = await runCli([
      "hub",
      "serve",
      "--port",
      "0",
      "--kv",
      `${tmp.path}/kv/hub.sqlite`,
      "--public-url",
      url,
    ], {
      cwd: tmp.path,
      permissions: ["--unstable-kv", ...SERVE],
      timeoutMs: 20_000,
    });
    assert.equal(r.code, 2, `${url}: ${r.stderr}`);
    assert.match(r.stderr, /--public-url must be an http\(s\) URL/, url);
    assert.match(r.stderr, why, url);
    assert.doesNotMatch(r.stderr, /listening/, url);
  }
  await assert.rejects(
    Deno.stat(`${tmp.path}/kv`),
    Deno.errors.NotFound,
    "nothing created for a refused start",
  );
  // A path is fine: channel URLs go under it.
  await using hub = await startHub(tmp.path, 0, ["--public-url", "https://hub.example.com/p/"]);
  assert.match(hub.stderr(), /channel URLs: https:\/\/hub\.example\.com\/p\/c\/<id>\n/);
  assert.match(
    (await createChannel(tmp.path, hub.url)).url,
    /^https:\/\/hub\.example\.com\/p\/c\/[\w-]{22}$/,
  );
});

Deno.test("hub serve: a port it cannot bind leaves no new --kv directory or file behind", async () => {
  await using tmp = await withTmpDir();
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = String(taken.addr.port);
  const r = await runCli(["hub", "serve", "--port", port, "--kv", `${tmp.path}/new/deeper/hub.sqlite`], {
    cwd: tmp.path,
    permissions: ["--unstable-kv", ...SERVE],
    timeoutMs: 20_000,
  });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /address already in use\. Pick another with --port/);
  await assert.rejects(
    Deno.stat(`${tmp.path}/new`),
    Deno.errors.NotFound,
    "the directory it created is gone",
  );
  // In an existing directory: the new KV file (and its -wal, -shm) go, the directory and its files stay.
  await Deno.writeTextFile(`${tmp.path}/keep.txt`, "mine");
  const again = await runCli(["hub", "serve", "--port", port, "--kv", `${tmp.path}/hub2.sqlite`], {
    cwd: tmp.path,
    permissions: ["--unstable-kv", ...SERVE],
    timeoutMs: 20_000,
  });
  assert.notEqual(again.code, 0);
  const left = [];
  for await (const e of Deno.readDir(tmp.path)) left.push(e.name);
  assert.deepEqual(left.sort(), ["keep.txt"]);
});

Deno.test("hub: a GET that announces a body gets 400 (docs/hub.md) and nothing is stored; POST /api/channels refuses a body that is not a JSON object", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  const conn = await HttpConn.open(hub.port);
  try {
    await conn.send(
      `GET /c/${id}/gh HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nContent-Length: 5\r\n\r\nhello`,
    );
    const answer = await conn.readResponse(false);
    assert.equal(answer.status, 400, answer.text());
    assert.match(answer.text(), /cannot read the body of a GET request.*Nothing was stored/);
  } finally {
    conn.close();
  }
  const poll = await fetch(`${hub.url}/api/channels/${id}/events?after=0&wait=0`, {
    headers: { authorization: `Bearer ${channel.token}` },
  });
  assert.deepEqual((await poll.json() as WirePoll).events, []);

  const create = async (body?: string) => {
    const r = await fetch(`${hub.url}/api/channels`, {
      method: "POST",
      headers: { authorization: "Bearer admin" },
      ...(body === undefined ? {} : { body }),
    });
    // A refusal before the body was read closes the connection: its text may break off (tests/_hub.ts send).
    return { status: r.status, text: await r.text().catch(() => undefined) };
  };
  for (const bad of ["{bad", "[]", "42", '"x"', "x".repeat(5000)]) {
    const r = await create(bad);
    assert.equal(r.status, 400, `${bad.slice(0, 10)}: ${r.text}`);
    if (r.text !== undefined || bad.length < 4096) assert.match(r.text ?? "", /No channel was created/);
  }
  assert.equal((await create()).status, 201, "no body: a channel");
  assert.equal((await create("")).status, 201, "an empty body: a channel");
  assert.equal((await create("{}")).status, 201, "{}: a channel");
});

Deno.test("hub: every GET or HEAD of the API that announces a body gets 400 and its connection closed; POST /api/channels refuses an unknown key", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  const paths = [
    `/api/channels/${id}?client=alice`,
    `/api/channels/${id}/events?after=0&wait=0&client=alice`,
    `/api/channels/${id}/clients`,
    "/",
  ];
  const framings = [["Content-Length: 2", "xx"], ["Transfer-Encoding: chunked", "2\r\nxx\r\n0\r\n\r\n"]];
  for (const method of ["GET", "HEAD"]) {
    for (const path of paths) {
      for (const [header, body] of framings) {
        const conn = await HttpConn.open(hub.port);
        try {
          await conn.send(
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\n` +
              `Authorization: Bearer ${channel.token}\r\n${header}\r\n\r\n${body}`,
          );
          const answer = await conn.readResponse(method === "HEAD");
          assert.equal(answer.status, 400, `${method} ${path} ${header}: ${answer.text()}`);
          if (method === "GET") {
            assert.match(answer.text(), /takes no body/);
            // The connection closes after it: nothing more is read from it. (A HEAD's answer has no body
            // whose break-off closes it: its connection goes on, the announced body read and dropped.)
            await assert.rejects(conn.readResponse(), `${method} ${path}: connection closed`);
          }
        } finally {
          conn.close();
        }
      }
    }
  }
  // Without a body they work, and the status read above registered no one.
  const status = await fetch(`${hub.url}/api/channels/${id}?client=alice`, {
    headers: { authorization: `Bearer ${channel.token}` },
  });
  assert.equal(status.status, 200);
  assert.equal((await status.json()).registered, false);

  const create = async (body: string) => {
    const r = await fetch(`${hub.url}/api/channels`, {
      method: "POST",
      headers: { authorization: "Bearer admin" },
      body,
    });
    return { status: r.status, text: await r.text() };
  };
  for (const bad of ['{"a":1}', '{"retention":"7d","a":1}']) {
    const r = await create(bad);
    assert.equal(r.status, 400, `${bad}: ${r.text}`);
    assert.match(r.text, /unknown key "(a|retention)": the known keys are none .*No channel was created/);
  }
  assert.equal((await create("{}")).status, 201, "{}: a channel");
});

Deno.test("hub serve: a --max-body-size over what dev takes from a hub (64MiB) is refused (exit 2); 64MiB serves", async () => {
  await using tmp = await withTmpDir();
  const r = await runCli(
    ["hub", "serve", "--port", "0", "--kv", `${tmp.path}/kv/hub.sqlite`, "--max-body-size", "65MiB"],
    { cwd: tmp.path, permissions: ["--unstable-kv", ...SERVE], timeoutMs: 20_000 },
  );
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--max-body-size must be at most 64MiB, got "65MiB"/);
  assert.doesNotMatch(r.stderr, /listening/);
  await using hub = await startHub(tmp.path, 0, ["--max-body-size", "64MiB"]);
  assert.match(hub.stderr(), /body 64 MiB/);
});

Deno.test("hub serve: an --answer-timeout over 5m is refused (exit 2); the banner shows the limits in effect", async () => {
  await using tmp = await withTmpDir();
  for (const value of ["6m", "30d"]) {
    const r = await runCli(
      ["hub", "serve", "--port", "0", "--kv", `${tmp.path}/kv/hub.sqlite`, "--answer-timeout", value],
      { cwd: tmp.path, permissions: ["--unstable-kv", ...SERVE], timeoutMs: 20_000 },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--answer-timeout must be at most 5m, got "${value}"`));
  }
  // A bound of bytes in flight below the body limit is raised to it (docs/hub.md#limits): said as in effect.
  await using hub = await startHub(tmp.path, 0, [
    "--max-bytes-in-flight",
    "1KiB",
    "--max-body-size",
    "2MiB",
    "--answer-timeout",
    "5m",
  ]);
  assert.match(
    hub.stderr(),
    /bodies in flight 2 MiB \(32 MiB per channel, 64 MiB per address\), answers waited for 5m/,
  );
});
