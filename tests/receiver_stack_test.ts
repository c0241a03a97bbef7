/**
 * The listening stack through the real `hooktap dev`: bodies of GET and
 * HEAD requests stored byte for byte on both stacks (Deno.serve, the
 * default, where src/server/deno_body.ts unlocks them; node:http), and
 * Ctrl-C during a slow upload answering it a retryable 503 while dev says
 * what it waits for.
 * @module
 */
import assert from "node:assert/strict";
import { decodeBody } from "../src/event/record.ts";
import type { CapturedEvent } from "../src/event/record.ts";
import { LEAST_PRIVILEGE, readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { HttpConn } from "./fault/_http.ts";

const enc = new TextEncoder();
const WITH_STACK = [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_STACK"];

const GET_CONFIG = `export default {
  port: 0,
  endpoints: [
    { name: "health", path: "/github", method: "GET" },
    { name: "ping", path: "/ping", method: "HEAD" },
    { name: "default", path: "/webhook", method: "POST" },
  ],
};
`;

for (const stack of ["node", "deno"] as const) {
  const how = stack === "node" ? "node:http, HOOKTAP_STACK=node" : "Deno.serve, the default";
  Deno.test(`dev stores the body of a GET and of a HEAD request byte for byte (${how})`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", GET_CONFIG);
    await using dev = stack === "node"
      ? await startDev(tmp.path, ["--quiet"], { permissions: WITH_STACK, env: { HOOKTAP_STACK: "node" } })
      : await startDev(tmp.path, ["--quiet"]);
    assert.match(
      dev.stderr(),
      stack === "node"
        ? /Server: node:http \(HOOKTAP_STACK=node\)/
        : /Server: Deno\.serve \(the default; it reads GET and HEAD bodies too\)/,
    );
    const binary = new Uint8Array([0x00, 0xff, 0x1b, 0x80, 0x0a]);
    const conn = await HttpConn.open(dev.port);
    try {
      const get = await conn.request({ method: "GET", path: "/github", body: "GETBODY" });
      assert.equal(get.status, 200, get.text());
      const head = await conn.request({ method: "HEAD", path: "/ping", body: binary });
      assert.equal(head.status, 200);
      await conn.send(
        "GET /github?x=1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n",
      );
      assert.equal((await conn.readResponse()).status, 200);
      // A GET without a body after them, on the same connection: stored empty.
      assert.equal((await conn.request({ method: "GET", path: "/github" })).status, 200);
    } finally {
      conn.close();
    }
    const events = await readEvents(tmp.path) as unknown as CapturedEvent[];
    assert.deepEqual(events.map((e) => [e.method, e.endpoint, e.bodySize]), [
      ["GET", "health", 7],
      ["HEAD", "ping", 5],
      ["GET", "health", 7],
      ["GET", "health", 0],
    ]);
    assert.deepEqual(decodeBody(events[0]!), enc.encode("GETBODY"));
    assert.deepEqual(decodeBody(events[1]!), binary);
    assert.deepEqual(decodeBody(events[2]!), enc.encode("abcdefg"));
    // node:http gives the raw header list, in the sender's case and order.
    if (stack === "node") {
      assert.deepEqual(events[2]!.headers, [["Host", "x"], ["Transfer-Encoding", "chunked"]]);
    }
  });
}

/** Ctrl-C while a 200 KB body arrives at ~20 KB/s; what the sender got and what dev printed. */
async function slowUploadCutOff(stack: "deno" | "node") {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
  );
  await using dev = await startDev(tmp.path, [], { permissions: WITH_STACK, env: { HOOKTAP_STACK: stack } });
  const size = 200 * 1024;
  const conn = await HttpConn.open(dev.port);
  await conn.send(`POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: ${size}\r\n\r\n`);
  let answered = false;
  const response = conn.readResponse().finally(() => (answered = true));
  const sending = (async () => {
    const piece = new Uint8Array(2048).fill(0x61);
    for (let sent = 0; sent < size && !answered; sent += piece.length) {
      await conn.send(piece).catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await new Promise((r) => setTimeout(r, 800)); // the upload is under way
  dev.child.kill("SIGINT");
  const got = await response;
  await sending;
  conn.close();
  const code = (await dev.child.status).code; // no second signal: that would quit at once
  await dev.stop();
  const err = dev.stderr();
  assert.equal(got.status, 503, `${stack}: ${got.text()}`);
  assert.equal(got.headers.get("retry-after"), "5");
  assert.match(got.text(), /shutting down.*Nothing was stored; retry/);
  assert.match(err, /finishing 1 request… \(up to 5 s\) Ctrl-C again to quit now/);
  assert.match(err, /Cut off 1 upload still arriving: answered 503/);
  assert.match(err, /Stopped\. 0 events captured/);
  assert.doesNotMatch(err, /cannot save events|Bad request/);
  assert.equal(code, 0);
  const events = await Deno.readTextFile(`${tmp.path}/.hooktap/events.jsonl`);
  assert.equal(events, "");
}

Deno.test("Ctrl-C during a slow upload: dev says what it waits for, then answers it a retryable 503 (both stacks)", async () => {
  await Promise.all([slowUploadCutOff("deno"), slowUploadCutOff("node")]);
});

/** Sends `head` + body over a raw TCP connection and reads the answer's status line. */
async function rawPost(port: number, head: string, body: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(`${head}Content-Length: ${body.length}\r\n\r\n${body}`));
    const buf = new Uint8Array(4096);
    const n = await conn.read(buf);
    return new TextDecoder().decode(buf.subarray(0, n ?? 0)).split("\r\n")[0]!;
  } finally {
    conn.close();
  }
}

const COOKIE_HEAD = "POST /webhook HTTP/1.1\r\nHost: x\r\nCookie: a=1\r\nX-Mixed: 1\r\nCOOKIE: b=2\r\n";

Deno.test("two Cookie headers: node:http stores them exactly as sent; Deno.serve's merged list is flagged (record v2 `merged`), never passed off as exact", async () => {
  for (const stack of ["node", "deno"] as const) {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", GET_CONFIG);
    await using dev = await startDev(tmp.path, [], {
      permissions: WITH_STACK,
      env: { HOOKTAP_STACK: stack },
    });
    assert.match(await rawPost(dev.port, COOKIE_HEAD, "{}"), / 200 /);
    await dev.stop();
    const [event] = await readEvents(tmp.path) as unknown as CapturedEvent[];
    assert.ok(event, `${stack}: the event is stored`);
    // The store's readers take v2 lines: logs lists it.
    const logs = await runCli(["logs", "--json"], { cwd: tmp.path });
    assert.equal(JSON.parse(logs.stdout.trim()).id, event.id, logs.stderr);
    const cookies = event.headers.filter(([n]) => n.toLowerCase() === "cookie");
    if (stack === "node") {
      assert.deepEqual(cookies, [["Cookie", "a=1"], ["COOKIE", "b=2"]]);
      assert.equal(event.v, 1);
      assert.equal(event.merged, undefined);
    } else {
      assert.equal(event.v, 2);
      assert.deepEqual(event.merged, ["cookie"]);
    }
  }
});
