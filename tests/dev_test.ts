import assert from "node:assert/strict";
import { join } from "node:path";
import { configSource } from "../src/config/starter.ts";
import { readEvents, runCli, sha256, startDev, withTmpDir, writeFile } from "./_helpers.ts";

/** Sends raw HTTP/1.1 bytes and returns the whole answer (the request asks to close). */
async function rawRequest(port: number, head: string, body: Uint8Array = new Uint8Array()): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new Uint8Array([...new TextEncoder().encode(head), ...body]));
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
  }
  conn.close();
  return new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
}

async function withStarter(dir: string): Promise<void> {
  await writeFile(dir, "hooktap.config.ts", configSource());
}

Deno.test("dev stores a JSON request with every record field right and answers 200 with its id", async () => {
  await using tmp = await withTmpDir();
  await withStarter(tmp.path);
  await using dev = await startDev(tmp.path);
  const body = '{"action":"opened","number":1}';
  const response = await fetch(`${dev.url}/webhook?b=2&a=%20x`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "push" },
    body,
  });
  const id = response.headers.get("x-hooktap-event-id");
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { ok: true, id }); // a sender is not told the verdict
  const [event, ...rest] = await readEvents(tmp.path);
  assert.equal(rest.length, 0);
  assert.match(String(id), /^evt_\d{8}_[0-9A-Z]{26}$/);
  assert.equal(event!.id, id);
  assert.equal(String(id).slice(4, 12), new Date().toISOString().slice(0, 10).replaceAll("-", ""));
  assert.equal(event!.v, 1);
  assert.equal(event!.endpoint, "default");
  assert.match(String(event!.receivedAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Math.abs(Date.parse(String(event!.receivedAt)) - Date.now()) < 60_000);
  assert.equal(event!.method, "POST");
  assert.equal(event!.path, "/webhook");
  assert.equal(event!.query, "b=2&a=%20x");
  assert.equal(event!.body, body);
  assert.equal(event!.bodyEncoding, "utf8");
  assert.equal(event!.bodySize, body.length);
  assert.equal(event!.remoteAddr, "127.0.0.1");
  const headers = event!.headers as [string, string][];
  assert.ok(
    headers.some(([k, v]) => k.toLowerCase() === "x-github-event" && v === "push"),
    JSON.stringify(headers),
  );
  assert.equal(await dev.stop("SIGTERM"), 0);
  assert.match(dev.stdout(), /POST\s+\/webhook\?b=2&a=%20x\s+200\s+default\s+30 B\s+evt_/);
  assert.match(dev.stderr(), /Stopped\. 1 event captured this session/);
});

Deno.test("dev keeps repeated headers in arrival order, with the sender's case", async () => {
  await using tmp = await withTmpDir();
  await withStarter(tmp.path);
  await using dev = await startDev(tmp.path);
  const answer = await rawRequest(
    dev.port,
    "POST /webhook HTTP/1.1\r\nHost: example.test\r\nX-Zeta: 1\r\nSet-Cookie: a=1\r\nx-alpha: 2\r\n" +
      "X-Zeta: 3\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
  );
  assert.match(answer, /^HTTP\/1\.1 200/);
  const [event] = await readEvents(tmp.path);
  assert.deepEqual(event!.headers, [
    ["Host", "example.test"],
    ["X-Zeta", "1"],
    ["Set-Cookie", "a=1"],
    ["x-alpha", "2"],
    ["X-Zeta", "3"],
    ["Set-Cookie", "b=2"],
    ["Content-Length", "0"],
    ["Connection", "close"],
  ]);
  assert.equal(event!.body, "");
  assert.equal(event!.bodySize, 0);
  assert.equal(event!.query, "");
});

Deno.test("dev stores a binary body as base64, byte for byte", async () => {
  await using tmp = await withTmpDir();
  await withStarter(tmp.path);
  await using dev = await startDev(tmp.path);
  const bytes = new Uint8Array(70_000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) % 256;
  const response = await fetch(`${dev.url}/webhook`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: bytes,
  });
  assert.equal(response.status, 200);
  await response.body?.cancel();
  const [event] = await readEvents(tmp.path);
  assert.equal(event!.bodyEncoding, "base64");
  assert.equal(event!.bodySize, bytes.length);
  const stored = Uint8Array.from(atob(String(event!.body)), (c) => c.charCodeAt(0));
  assert.equal(await sha256(stored), await sha256(bytes));
});

Deno.test("dev answers 404 and 405 with the spec's bodies, stores nothing, and prints them", async () => {
  await using tmp = await withTmpDir();
  await withStarter(tmp.path);
  await using dev = await startDev(tmp.path);
  const notFound = await fetch(`${dev.url}/`, { method: "POST", body: "{}" });
  assert.equal(notFound.status, 404);
  assert.equal(await notFound.text(), "No webhook endpoint matched this request.");
  const wrongMethod = await fetch(`${dev.url}/webhook`);
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get("allow"), "POST");
  assert.equal(await wrongMethod.text(), "Method not allowed.");
  await dev.stop();
  assert.equal(await Deno.readTextFile(join(tmp.path, ".hooktap", "events.jsonl")), "");
  assert.match(dev.stdout(), /POST\s+\/\s+404\s+no endpoint here; configured: POST \/webhook/);
  assert.match(dev.stdout(), /GET\s+\/webhook\s+405\s+this path accepts POST/);
});

Deno.test("dev serves several endpoints, a method list, and prints each in its banner", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [
      { name: "github", path: "/github", method: "POST" },
      { name: "poll", path: "/github", method: "get" },
      { name: "stripe", path: "/stripe", method: ["POST", "PUT"] },
    ] };`,
  );
  await using dev = await startDev(tmp.path);
  for (const [method, path] of [["POST", "/github"], ["GET", "/github"], ["PUT", "/stripe"]] as const) {
    const r = await fetch(`${dev.url}${path}`, { method, ...(method === "GET" ? {} : { body: "x" }) });
    assert.equal(r.status, 200, `${method} ${path}`);
    await r.body?.cancel();
  }
  const events = await readEvents(tmp.path);
  assert.deepEqual(events.map((e) => e.endpoint), ["github", "poll", "stripe"]);
  assert.match(dev.stderr(), /POST\s+http:\/\/localhost:\d+\/github\s+\(github\)/);
  assert.match(dev.stderr(), /POST,PUT\s+http:\/\/localhost:\d+\/stripe\s+\(stripe\)/);
});

Deno.test("dev without a config and without a terminal starts on the starter config and writes no file", async () => {
  await using tmp = await withTmpDir();
  await using dev = await startDev(tmp.path);
  assert.match(dev.stderr(), /using the built-in starter config/);
  // It listens where --port 0 said (any free port), and says so rather than the starter's 8787.
  assert.match(dev.stderr(), /starter config \(any free port, as --port 0 asked, POST \/webhook/);
  const r = await fetch(`${dev.url}/webhook`, { method: "POST", body: "hi" });
  assert.equal(r.status, 200);
  await r.body?.cancel();
  await assert.rejects(Deno.stat(join(tmp.path, "hooktap.config.ts")), Deno.errors.NotFound);
  assert.equal((await readEvents(tmp.path))[0]!.body, "hi");
});

Deno.test("dev --json prints the ready object, then one JSON object per request on stdout and nothing else", async () => {
  await using tmp = await withTmpDir();
  await withStarter(tmp.path);
  await using dev = await startDev(tmp.path, ["--json"]);
  const ok = await fetch(`${dev.url}/webhook`, { method: "POST", body: "x" });
  const id = ok.headers.get("x-hooktap-event-id");
  await ok.body?.cancel();
  await (await fetch(`${dev.url}/nope`)).body?.cancel();
  await dev.stop();
  const [ready, ...lines] = dev.stdout().trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(ready.type, "ready");
  assert.equal(ready.port, dev.port);
  assert.equal(lines.length, 2);
  assert.deepEqual(
    { ...lines[0], time: undefined },
    {
      time: undefined,
      method: "POST",
      path: "/webhook",
      query: "",
      status: 200,
      endpoint: "default",
      size: 1,
      id,
    },
  );
  assert.equal(lines[1].status, 404);
});

Deno.test("dev refuses a port in use with one clear line and a non-zero exit", async () => {
  await using tmp = await withTmpDir();
  await withStarter(tmp.path);
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const result = await runCli(["dev", "--port", String(port)], { cwd: tmp.path });
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    new RegExp(
      `error: Cannot bind port ${port} on 127\\.0\\.0\\.1: address already in use \\(another hooktap dev\\?\\)`,
    ),
  );
});

Deno.test("dev rejects a bad --port value", async () => {
  await using tmp = await withTmpDir();
  const result = await runCli(["dev", "--port", "http"], { cwd: tmp.path });
  assert.equal(result.code, 2, "a usage error, not a config error");
  assert.match(
    result.stderr,
    /--port must be a whole number from 0 to 65535 \(0 picks a free port\), got "http"/,
  );
});
