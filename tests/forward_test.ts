import assert from "node:assert/strict";
import { join } from "node:path";
import { sign, verify } from "@octokit/webhooks-methods";
import { freePort, startApp, until } from "./_app.ts";
import {
  deliveries,
  LEAST_PRIVILEGE,
  readEvents,
  runCli,
  startDev,
  withTmpDir,
  writeFile,
} from "./_helpers.ts";

const SECRET = "it's a secret to everybody";

function config(forward: string): string {
  return `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: ${forward} }] };\n`;
}

/** Sends raw bytes over TCP so header case, order and repeats are exactly ours. */
async function rawPost(
  port: number,
  path: string,
  headers: [string, string][],
  body: Uint8Array,
): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    headers.map(([n, v]) => `${n}: ${v}\r\n`).join("") +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  await conn.write(new Uint8Array([...new TextEncoder().encode(head), ...body]));
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  while (true) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
  }
  conn.close();
  return new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
}

Deno.test("an app that is down at first gets every event once it comes up, byte-exact, signature valid, repeats in order", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`{ to: "http://localhost:${appPort}/hooks", retry: { backoff: [150] } }`),
  );
  await using dev = await startDev(tmp.path);
  const bodies = [
    new TextEncoder().encode('{"zen":"Keep it logically awesome.","n":1}'),
    new Uint8Array([0xff, 0x00, 0x7b, 0x0d, 0x0a, 0x80]), // not UTF-8: stored as base64, sent as bytes
    new TextEncoder().encode('{ "spaced" :  "json",\n  "n": 3 }'),
  ];
  for (const [i, body] of bodies.entries()) {
    const signature = await sign(SECRET, new TextDecoder().decode(body));
    const answer = await rawPost(dev.port, `/gh?delivery=${i}`, [
      ["X-GitHub-Event", "push"],
      ["X-Hub-Signature-256", signature],
      ["X-Dup", "first"],
      ["x-dup", "second"],
    ], body);
    assert.match(answer, /^HTTP\/1.1 200/);
  }
  await until(
    () => dev.stderr().includes(`nothing listens on localhost:${appPort}: is your app running?`),
    "app-down line",
  );
  await using app = startApp(appPort, () => ({ status: 204 }));
  await until(() => app.requests.length >= 3, "3 deliveries");
  await until(() => dev.stderr().includes(`localhost:${appPort} answers again`), "app-back line");
  const byQuery = new Map(app.requests.map((r) => [r.target, r]));
  for (const [i, body] of bodies.entries()) {
    const req = byQuery.get(`/hooks?delivery=${i}`);
    assert.ok(req, `delivery ${i} arrived`);
    assert.deepEqual(req.body, body);
    const names = req.headers.map(([n]) => n);
    assert.deepEqual(names, [
      "Host",
      "X-GitHub-Event",
      "X-Hub-Signature-256",
      "X-Dup",
      "x-dup",
      "Content-Length",
    ]); // nothing added but Host (http targets go through src/send/http1.ts)
    assert.deepEqual(req.headers.filter(([n]) => n.toLowerCase() === "x-dup").map(([, v]) => v), [
      "first",
      "second",
    ]);
    if (i !== 1) {
      const sig = req.headers.find(([n]) => n === "X-Hub-Signature-256")![1];
      assert.ok(
        await verify(SECRET, new TextDecoder().decode(req.body), sig),
        "signature verifies at the app",
      );
    }
  }
  await until(
    async () => (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered").length === 3,
    "records",
  );
  const records = await deliveries(tmp.path);
  assert.ok(records.some((d) => d.outcome === "retrying" && /nothing listens/.test(String(d.error))));
  assert.equal(await dev.stop(), 0);
});

Deno.test("an app answering 500 with a stack trace: shown sanitized, retried, recorded", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(
    0,
    (_r, n) =>
      n === 1
        ? {
          status: 500,
          body:
            "TypeError: Cannot read properties of undefined\n    at handler (app.js:12:7)\n\x1b[2Jcleared",
        }
        : { status: 200, body: "ok" },
  );
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`{ to: "http://127.0.0.1:${app.port}/hook", retry: { backoff: [100] } }`),
  );
  await using dev = await startDev(tmp.path);
  const r = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
  assert.equal(r.status, 200);
  await r.body?.cancel();
  await until(() => app.requests.length === 2, "a retry");
  await until(() => /<-- \[200\]/.test(dev.stdout()), "the 200 line");
  const out = dev.stdout();
  assert.match(
    out,
    /<-- \[500\] POST http:\/\/127\.0\.0\.1:\d+\/hook \[evt_\w+\] [\d.]+ ms attempt 1 retry in/,
  );
  assert.match(out, /│ TypeError: Cannot read properties of undefined/);
  assert.match(out, /│ {5}at handler \(app\.js:12:7\)/);
  assert.ok(!out.includes("\x1b"), "no raw escape reaches the terminal");
  assert.match(out, /\\x1b\[2Jcleared/);
  const records = await deliveries(tmp.path);
  assert.deepEqual(records.map((d) => [d.attempt, d.status, d.outcome]), [[1, 500, "retrying"], [
    2,
    200,
    "delivered",
  ]]);
  assert.match(String(records[0]!.body), /^TypeError/);
  const inspect = await runCli(["inspect", String(records[0]!.event)], { cwd: tmp.path });
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.match(inspect.stdout, /Deliveries/);
  assert.match(inspect.stdout, /500/);
  const logs = await runCli(["logs"], { cwd: tmp.path });
  assert.match(logs.stdout, /200 \(2 tries\)/);
});

Deno.test("relay mode: the sender gets the app's status, headers and body; 502 when the app is down", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`{ to: "http://127.0.0.1:${appPort}/hook", mode: "relay" }`),
  );
  await using dev = await startDev(tmp.path, ["--json"]);
  const down = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
  assert.equal(down.status, 502);
  assert.match(
    await down.text(),
    /got no answer: nothing listens on 127\.0\.0\.1:\d+\. The event is stored as evt_/,
  );
  await using _app = startApp(
    appPort,
    () => ({ status: 422, headers: [["X-App", "yes"]], body: '{"error":"bad"}' }),
  );
  const up = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
  assert.equal(up.status, 422);
  assert.equal(up.headers.get("x-app"), "yes");
  assert.equal(await up.text(), '{"error":"bad"}');
  await until(
    () => dev.stdout().split("\n").filter((l) => l.includes('"kind":"delivery"')).length === 2,
    "json lines",
  );
  const lines = dev.stdout().split("\n").filter((l) => l.includes('"kind":"delivery"')).map((l) =>
    JSON.parse(l)
  );
  assert.deepEqual(lines.map((l) => [l.source, l.status ?? null, l.outcome]), [["relay", null, "failed"], [
    "relay",
    422,
    "failed",
  ]]);
  // What dev said is true of relay: nothing waits, the sender got the 502.
  assert.match(
    dev.stderr(),
    /nothing listens on 127\.0\.0\.1:\d+: is your app running\? The sender got a 502/,
  );
  assert.doesNotMatch(dev.stderr(), /Events wait/);
});

Deno.test("a slow app: the timeout is recorded and retried", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, (_r, n) => (n === 1 ? { status: 200, delayMs: 1500 } : { status: 200 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`{ to: "http://127.0.0.1:${app.port}/hook", timeout: 300, retry: { backoff: [50] } }`),
  );
  await using dev = await startDev(tmp.path);
  await (await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" })).body?.cancel();
  await until(async () => (await deliveries(tmp.path)).some((d) => d.outcome === "delivered"), "delivered");
  const records = await deliveries(tmp.path);
  assert.match(String(records[0]!.error), /no answer within 300 ms/);
  assert.equal(records[0]!.outcome, "retrying");
});

Deno.test("a target that is hooktap's own receiver is refused at start", async () => {
  await using tmp = await withTmpDir();
  const port = freePort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: ${port}, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
  );
  const result = await runCli(["dev", "--forward-to", `http://localhost:${port}/gh`], { cwd: tmp.path });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /forward target http:\/\/localhost:\d+\/gh is hooktap's own receiver/);
});

Deno.test("bad forward config names the field", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`{ to: "localhost:3000/x", mode: "relya", concurency: 2 }`),
  );
  const result = await runCli(["dev"], { cwd: tmp.path });
  assert.equal(result.code, 78);
  assert.match(
    result.stderr,
    /endpoints\[0\]\.forward\.to needs a scheme: did you mean "http:\/\/localhost:3000\/x"\?/,
  );
  assert.match(result.stderr, /endpoints\[0\]\.forward\.mode must be "queue" or "relay"/);
  assert.match(
    result.stderr,
    /endpoints\[0\]\.forward\.concurency is not a forward field: did you mean "concurrency"\?/,
  );
});

Deno.test("SIGKILL mid-delivery, then restart: every event ends delivered at least once", async () => {
  await using tmp = await withTmpDir();
  let slow = true;
  await using app = startApp(0, () => ({ status: 200, delayMs: slow ? 400 : 0 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`{ to: "http://127.0.0.1:${app.port}/hook", concurrency: 1 }`),
  );
  const dev = await startDev(tmp.path);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ i }) });
    ids.push((await r.json()).id);
  }
  await until(() => app.requests.length >= 1, "the first delivery started");
  await dev.stop("SIGKILL");
  slow = false;
  const before = app.requests.length;
  assert.ok(before < 5, "killed before every event was delivered");
  await using again = await startDev(tmp.path);
  // The banner comes first; the report on the last run's undelivered events follows it.
  await until(
    () => /\d+ deliver(y|ies) of events stored but not delivered/.test(again.stderr()),
    "the report",
  );
  assert.match(
    again.stderr(),
    /\d+ deliver(y|ies) of events stored but not delivered when hooktap last stopped go out now, in the order received/,
  );
  await until(async () => {
    const delivered = new Set(
      (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered").map((d) => d.event),
    );
    return ids.every((id) => delivered.has(id));
  }, "every event delivered");
  const bodies = app.requests.map((r) => new TextDecoder().decode(r.body));
  for (let i = 0; i < 5; i++) assert.ok(bodies.includes(JSON.stringify({ i })), `event ${i} reached the app`);
  // The event in flight at the kill reached the app twice: the second send is recorded as resumed.
  assert.equal(bodies.filter((b) => b === JSON.stringify({ i: 0 })).length, 2);
  const first = (await deliveries(tmp.path)).filter((d) => d.event === ids[0]);
  assert.deepEqual(first.map((d) => [d.attempt, d.resumed, d.outcome]), [[1, true, "delivered"]]);
  assert.match(again.stdout(), /again after a restart/);
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 5);
  assert.ok(events.every((e) => (e.forward as { to: string }).to.includes(`${app.port}`)));
  assert.equal(await again.stop(), 0);
});

Deno.test("replay --undelivered --to sends what never got through, recorded as replay deliveries", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`{ to: "http://127.0.0.1:${appPort}/hook", retry: false }`),
  );
  const dev = await startDev(tmp.path);
  {
    // The app answers 503 and there are no retries: given up (an app that is down would not spend the attempt).
    await using broken = startApp(appPort, () => ({ status: 503 }));
    for (let i = 0; i < 2; i++) {
      await (await fetch(`${dev.url}/gh`, { method: "POST", body: `{"i":${i}}` })).body?.cancel();
    }
    await until(async () => (await deliveries(tmp.path)).length === 2, "two failed attempts");
    assert.equal(broken.requests.length, 2);
  }
  assert.equal(await dev.stop(), 0);
  // The next start reports the given-up events per endpoint and target, with the command that resends them.
  const again = await startDev(tmp.path);
  await until(() => /failed every delivery attempt/.test(again.stderr()), "the given-up report");
  assert.equal(await again.stop(), 0);
  assert.match(
    again.stderr(),
    new RegExp(
      `2 events of endpoint gh failed every delivery attempt to 127\\.0\\.0\\.1:${appPort}/hook earlier: ` +
        `hooktap replay --undelivered --endpoint gh --target 127\\.0\\.0\\.1:${appPort}/hook sends them again`,
    ),
  );
  await using app = startApp(appPort, () => ({ status: 200 }));
  const result = await runCli(["replay", "--undelivered", "--to", `http://127.0.0.1:${appPort}/hook`], {
    cwd: tmp.path,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(app.requests.length, 2);
  const records = await deliveries(tmp.path);
  assert.deepEqual(records.map((d) => [d.source, d.outcome]), [
    ["forward", "failed"],
    ["forward", "failed"],
    ["replay", "delivered"],
    ["replay", "delivered"],
  ]);
  const second = await runCli(["replay", "--undelivered", "--to", `http://127.0.0.1:${appPort}/hook`], {
    cwd: tmp.path,
  });
  assert.equal(second.code, 0);
  assert.match(second.stderr, /No undelivered events/);
});

Deno.test("an https target with a self-signed certificate: refused without ca, delivered with ca or insecure", async () => {
  await using tmp = await withTmpDir();
  const gen = await new Deno.Command("openssl", {
    args: [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "key.pem",
      "-out",
      "cert.pem",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ],
    cwd: tmp.path,
    stderr: "null",
  }).output();
  assert.ok(gen.success, "openssl made a certificate");
  const seen: string[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: await Deno.readTextFile(join(tmp.path, "cert.pem")),
    key: await Deno.readTextFile(join(tmp.path, "key.pem")),
    onListen() {},
  }, async (req) => {
    seen.push(await req.text());
    return new Response("secure ok");
  });
  try {
    const to = `https://localhost:${server.addr.port}/hook`;
    for (
      const [extra, expectOk] of [["", false], [`, ca: "cert.pem"`], [", insecure: true"]] as [
        string,
        boolean?,
      ][]
    ) {
      await Deno.remove(join(tmp.path, ".hooktap"), { recursive: true }).catch(() => {});
      await writeFile(tmp.path, "hooktap.config.ts", config(`{ to: "${to}", retry: false${extra} }`));
      // node:https reads Deno's CA store: https targets need --allow-sys --allow-env (README: permissions).
      const dev = await startDev(tmp.path, [], {
        permissions: [...LEAST_PRIVILEGE, "--allow-sys", "--allow-env"],
      });
      await (await fetch(`${dev.url}/gh`, { method: "POST", body: `{"tls":"${extra}"}` })).body?.cancel();
      await until(async () => (await deliveries(tmp.path)).length === 1, "one attempt");
      const [record] = await deliveries(tmp.path);
      if (expectOk === false) {
        assert.equal(record!.outcome, "failed");
        assert.match(String(record!.error), /TLS failed.*forward\.insecure or forward\.ca/);
      } else {
        assert.equal(record!.outcome, "delivered", String(record!.error));
        assert.equal(record!.body, "secure ok");
      }
      assert.equal(await dev.stop(), 0);
    }
    assert.equal(seen.length, 2);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a pattern endpoint's parameters fill its forward target: /hooks/:provider -> /in/:provider", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "hooks", path: "/hooks/:provider", method: "POST", ` +
      `forward: "http://127.0.0.1:${app.port}/in/:provider" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  for (const provider of ["github", "caf%C3%A9"]) {
    await (await fetch(`${dev.url}/hooks/${provider}?x=1`, { method: "POST", body: provider })).body
      ?.cancel();
  }
  await until(() => app.requests.length === 2, "two deliveries");
  assert.deepEqual(app.requests.map((r) => r.target).sort(), ["/in/caf%C3%A9?x=1", "/in/github?x=1"]);
  // The app answers before the attempt is recorded: wait for both records.
  await until(async () => (await deliveries(tmp.path)).length === 2, "two delivery records");
  const urls = (await deliveries(tmp.path)).map((d) => d.url).sort();
  assert.deepEqual(urls, [
    `http://127.0.0.1:${app.port}/in/caf%C3%A9?x=1`,
    `http://127.0.0.1:${app.port}/in/github?x=1`,
  ]);
  // One named target (named after its configured URL), two URLs.
  const names = new Set((await deliveries(tmp.path)).map((d) => d.target));
  assert.deepEqual([...names], [`127.0.0.1:${app.port}/in/:provider`]);
  assert.equal(await dev.stop(), 0);
});
