/**
 * Forwarding the senders of the fourth audit (Shopify, Slack, Zoom, Meta,
 * Twilio, Discord) through the real CLI: events made by `hooktap trigger`,
 * `dev` forwarding them to an app on loopback, and the app checking each
 * signature as the sender's own library or documented scheme does
 * (tests/trigger/_verifiers.ts). Each test holds a defect the audit found.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { startApp, until, unusedPort } from "./_app.ts";
import { deliveries, readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { verify } from "./trigger/_verifiers.ts";

Deno.test("Shopify: a rule's type prefix takes Shopify's topics (orders takes orders/create); the app verifies them", async () => {
  await using tmp = await withTmpDir();
  await using orders = startApp(0, () => ({ status: 200 }));
  await using rest = startApp(0, () => ({ status: 200 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "shop", path: "/shop", method: "POST", ` +
      `provider: "shopify", secret: "shpss_audit", forward: [` +
      `{ name: "orders", to: "http://127.0.0.1:${orders.port}/orders", when: { type: "orders" } },` +
      `{ name: "apps", to: "http://127.0.0.1:${rest.port}/apps", when: { type: ["app", "customers"] } }] }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  for (const topic of ["orders/create", "customers/update", "orders/paid", "products/create"]) {
    const sent = await runCli(["trigger", "shopify", topic], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
  }
  await until(() => orders.requests.length >= 2 && rest.requests.length >= 1, `deliveries\n${dev.stdout()}`);
  await until(async () => (await deliveries(tmp.path)).length >= 3, "deliveries recorded");
  const topic = (r: { headers: [string, string][] }) =>
    r.headers.find(([k]) => k.toLowerCase() === "x-shopify-topic")?.[1];
  assert.deepEqual(orders.requests.map(topic), ["orders/create", "orders/paid"]);
  assert.deepEqual(rest.requests.map(topic), ["customers/update"]);
  for (const r of [...orders.requests, ...rest.requests]) {
    const arrived = { url: `http://127.0.0.1:${orders.port}${r.target}`, headers: r.headers, body: r.body };
    assert.ok(await verify("shopify", arrived, { secret: "shpss_audit", publicKeys: {} }), topic(r));
  }
  const marks = (await readEvents(tmp.path)).map((e) => (e.forward as { targets?: string[] }).targets);
  assert.deepEqual(marks, [["orders"], ["apps"], ["orders"], []]);
  // `logs --type` is the same filter language: the prefix finds Shopify's topics too.
  const logs = await runCli(["logs", "--type", "orders", "--json"], { cwd: tmp.path });
  assert.equal(logs.code, 0, logs.stderr);
  assert.equal(logs.stdout.trim().split("\n").length, 2, logs.stdout);
  assert.equal(await dev.stop(), 0);
  assert.equal(dev.stdout().match(/not forwarded \(no rule matched\)/g)?.length, 1, dev.stdout());
  // That line comes after the line of the request it is about (it was printed before the event was stored).
  const products = String((await readEvents(tmp.path))[3]!.id);
  const lines = dev.stdout().split("\n").filter((l) => l.includes(products));
  assert.equal(lines.length, 2, dev.stdout());
  assert.match(lines[0]!, /POST +\/shop +200/);
  assert.match(lines[1]!, /not forwarded \(no rule matched\)/);
});

Deno.test("relay: the app's own 404 is shown as the event's answer, not as a request no endpoint took", async () => {
  await using tmp = await withTmpDir();
  let status = 404;
  await using app = startApp(0, () => ({ status, body: "Not Found" }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "discord", path: "/interactions", ` +
      `method: "POST", provider: "discord", forward: { to: "http://127.0.0.1:${app.port}/i", mode: "relay" } }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const first = await runCli(["trigger", "discord", "APPLICATION_COMMAND"], { cwd: tmp.path });
  assert.match(first.stdout + first.stderr, /404/);
  status = 405;
  const second = await runCli(["trigger", "discord", "APPLICATION_COMMAND"], { cwd: tmp.path });
  assert.match(second.stdout + second.stderr, /405/);
  const key = (first.stdout + first.stderr).match(/public key: ([0-9a-f]{64})/)![1]!;
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 2);
  await until(() => (dev.stdout().match(/POST +\/interactions +40[45]/g) ?? []).length >= 2, dev.stdout());
  assert.doesNotMatch(dev.stdout(), /no endpoint here|this path accepts/, dev.stdout());
  for (const [i, code] of [[0, 404], [1, 405]] as const) {
    const line = dev.stdout().split("\n").find((l) => new RegExp(`/interactions +${code} `).test(l)) ?? "";
    assert.match(line, new RegExp(`${code} +discord .*${events[i]!.id}`), dev.stdout());
  }
  // What the app got is what the sender signed: discord-interactions accepts it.
  for (const r of app.requests) {
    const arrived = { url: `http://127.0.0.1:${app.port}/i`, headers: r.headers, body: r.body };
    assert.ok(await verify("discord", arrived, { secret: "", publicKeys: { discord: key } }));
  }
  assert.equal(await dev.stop(), 0);
});

Deno.test("replay ID of an event dev did not forward goes to the target whose rule takes it, under that target's name", async () => {
  await using tmp = await withTmpDir();
  await using orders = startApp(0, () => ({ status: 200 }));
  await using apps = startApp(0, () => ({ status: 200 }));
  const endpoint = (forward: string) =>
    `export default { port: 0, ui: false, endpoints: [{ name: "shop", path: "/shop", method: "POST", ` +
    `provider: "shopify", secret: "shpss_audit"${forward} }] };\n`;
  await writeFile(tmp.path, "hooktap.config.ts", endpoint(""));
  {
    await using dev = await startDev(tmp.path);
    for (const topic of ["customers/update", "products/create"]) {
      const sent = await runCli(["trigger", "shopify", topic], { cwd: tmp.path });
      assert.equal(sent.code, 0, sent.stderr);
    }
    assert.equal(await dev.stop(), 0);
  }
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    endpoint(
      `, forward: [{ name: "orders", to: "http://127.0.0.1:${orders.port}/orders", when: { type: "orders" } },` +
        `{ name: "apps", to: "http://127.0.0.1:${apps.port}/apps", when: { type: "customers" } }]`,
    ),
  );
  const [customers, products] = (await readEvents(tmp.path)).map((e) => e.id as string);
  const first = await runCli(["replay", customers!], { cwd: tmp.path });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.match(first.stderr, /\(target apps\)/);
  assert.deepEqual([orders.requests.length, apps.requests.length], [0, 1]);
  // No rule takes products/create: the endpoint's first target, under its name.
  const second = await runCli(["replay", products!], { cwd: tmp.path });
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.match(second.stderr, /\(target orders\)/);
  assert.deepEqual([orders.requests.length, apps.requests.length], [1, 1]);
  const sent = (await deliveries(tmp.path)).map((d) => `${d.event} ${d.target} ${d.source}`);
  assert.deepEqual(sent, [`${customers} apps replay`, `${products} orders replay`]);
  const arrived = { url: "", headers: apps.requests[0]!.headers, body: apps.requests[0]!.body };
  assert.ok(await verify("shopify", arrived, { secret: "shpss_audit", publicKeys: {} }));
});

Deno.test("Slack: a retry past a short tolerance is re-signed (and dev says so), a fresh attempt is not, an event expired at receipt never is", async () => {
  await using tmp = await withTmpDir();
  const seen = new Map<string, number>();
  await using app = startApp(0, (r) => {
    const key = new TextDecoder().decode(r.body);
    seen.set(key, (seen.get(key) ?? 0) + 1);
    return { status: seen.get(key) === 1 ? 500 : 200 };
  });
  const secret = "slack_audit";
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "slack", path: "/slack", method: "POST", ` +
      `provider: "slack", secret: "${secret}", tolerance: 4, ` +
      `forward: { to: "http://127.0.0.1:${app.port}/slack", retry: { attempts: 2, backoff: [3000] } } }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const sent = await runCli(["trigger", "slack", "message"], { cwd: tmp.path });
  assert.equal(sent.code, 0, sent.stderr);
  // Signed ten minutes ago (a replayed request, or a sender's clock far off): expired when it arrives.
  const body = '{"type":"event_callback","event":{"type":"message","text":"old"}}';
  const ts = String(Math.floor(Date.now() / 1000) - 600);
  const sig = `v0=${createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex")}`;
  const old = await fetch(`${dev.url}/slack`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-slack-request-timestamp": ts,
      "x-slack-signature": sig,
    },
    body,
  });
  await old.body?.cancel();
  await until(() => app.requests.length >= 4, `four attempts\n${dev.stdout()}`, 30_000);
  const [fresh, expired] = await readEvents(tmp.path);
  assert.deepEqual([fresh!.verdict, expired!.verdict].map((v) => (v as { status: string }).status), [
    "valid",
    "expired",
  ]);
  const signature = (headers: readonly [string, string][]) =>
    headers.find(([k]) => k.toLowerCase() === "x-slack-signature")?.[1];
  const stored = signature(fresh!.headers as [string, string][]);
  const keys = { secret, publicKeys: {} };
  const check = (r: { headers: [string, string][]; body: Uint8Array }) =>
    verify("slack", { url: "", headers: r.headers, body: r.body }, keys);
  // Live events go out together (up to the target's concurrency): the two events' attempts may interleave.
  const old_ = (r: { body: Uint8Array }) => new TextDecoder().decode(r.body) === body;
  const [a1, a2] = app.requests.filter((r) => !old_(r));
  const [b1, b2] = app.requests.filter(old_);
  assert.equal(signature(a1!.headers), stored, "attempt 1, at once: the sender's own signature");
  assert.notEqual(signature(a2!.headers), stored, "attempt 2, past the tolerance: signed afresh");
  assert.deepEqual([await check(a1!), await check(a2!)], [true, true]);
  assert.equal(signature(b1!.headers), sig);
  assert.equal(signature(b2!.headers), sig, "expired at receipt: sent as received, never made fresh");
  assert.deepEqual([await check(b1!), await check(b2!)], [false, false]);
  await until(async () => (await deliveries(tmp.path)).length >= 4, "deliveries recorded");
  const resigned = (await deliveries(tmp.path)).map((d) =>
    `${d.event === fresh!.id ? "a" : "b"}${d.attempt} ${d.resigned ?? false}`
  ).sort();
  assert.deepEqual(resigned, ["a1 false", "a2 true", "b1 false", "b2 false"]);
  assert.equal(
    dev.stdout().match(/\(re-signed: older than the endpoint's tolerance\)/g)?.length,
    1,
    dev.stdout(),
  );
  assert.equal(await dev.stop(), 0);
});

Deno.test("Twilio: the forwarded signature is the one over the URL hooktap was called at (twilio checks it there), replay --resign signs the app's URL", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200, body: "<Response/>" }));
  const token = "twilio_audit_token";
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "sms", path: "/sms", method: "POST", ` +
      `provider: "twilio", secret: "${token}", forward: "http://127.0.0.1:${app.port}/twilio" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const sent = await runCli(["trigger", "twilio", "delivered"], { cwd: tmp.path });
  assert.equal(sent.code, 0, sent.stderr);
  await until(() => app.requests.length >= 1, `the delivery\n${dev.stdout()}`);
  const [event] = await readEvents(tmp.path);
  assert.equal((event!.verdict as { status: string }).status, "valid");
  const keys = { secret: token, publicKeys: {} };
  const at = (url: string, r: { headers: [string, string][]; body: Uint8Array }) =>
    verify("twilio", { url, headers: r.headers, body: r.body }, keys);
  const forwarded = app.requests[0]!;
  assert.equal(await at(`http://127.0.0.1:${dev.port}/sms`, forwarded), true, "the URL Twilio called");
  assert.equal(await at(`http://127.0.0.1:${app.port}/twilio`, forwarded), false, "the app's own URL");
  const resent = await runCli(["replay", String(event!.id), "--resign"], { cwd: tmp.path });
  assert.equal(resent.code, 0, resent.stdout + resent.stderr);
  assert.equal(await at(`http://127.0.0.1:${app.port}/twilio`, app.requests[1]!), true, "re-signed for it");
  assert.equal(await dev.stop(), 0);
});

Deno.test("Meta: events an earlier dev --forward-to left waiting get a command naming their URL, which works as printed while dev runs", async () => {
  await using tmp = await withTmpDir();
  const secret = "meta_audit_secret";
  await using configured = startApp(0, () => ({ status: 200 }));
  const appPort = unusedPort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "wa", path: "/wa", method: ["GET", "POST"], ` +
      `provider: "meta", secret: "${secret}", forward: "http://127.0.0.1:${configured.port}/meta" }] };\n`,
  );
  const url = `http://127.0.0.1:${appPort}/whatsapp`;
  {
    await using dev = await startDev(tmp.path, ["--forward-to", url]);
    const sent = await runCli(["trigger", "meta", "whatsapp.message"], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
    await until(() => /nothing listens/.test(dev.stdout()), `the waiting line\n${dev.stdout()}`);
    assert.equal(await dev.stop(), 0);
  }
  await using dev = await startDev(tmp.path);
  await until(
    () => dev.stderr().includes("does not forward to"),
    `the report of the kept event\n${dev.stderr()}`,
  );
  const command = dev.stderr().match(/kept: hooktap (replay [^\n]*) sends it\./)?.[1];
  assert.equal(
    command,
    `replay --undelivered --endpoint wa --target 127.0.0.1:${appPort}/whatsapp --to ${url}`,
    dev.stderr(),
  );
  await using app = startApp(appPort, () => ({ status: 200 }));
  const pasted = await runCli(command!.split(" "), { cwd: tmp.path });
  assert.equal(pasted.code, 0, pasted.stdout + pasted.stderr);
  assert.equal(app.requests.length, 1);
  const r = app.requests[0]!;
  assert.ok(await verify("meta", { url, headers: r.headers, body: r.body }, { secret, publicKeys: {} }));
  assert.equal(configured.requests.length, 0, "never sent to a target it was not meant for");
  const logs = await runCli(["logs", "--json"], { cwd: tmp.path });
  assert.match(logs.stdout, /"outcome":"delivered"/, logs.stdout);
  assert.equal(await dev.stop(), 0);
});

Deno.test("Zoom with dev --json: the event a rule takes arrives signed as Zoom signs it; the one none takes is said not forwarded after its request object", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  const secret = "zoom_audit_secret";
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "zoom", path: "/zoom", method: "POST", ` +
      `provider: "zoom", secret: "${secret}", forward: { to: "http://127.0.0.1:${app.port}/zoom", ` +
      `when: { type: ["meeting.started", "meeting.ended"] } } }] };\n`,
  );
  await using dev = await startDev(tmp.path, ["--json"]);
  for (const type of ["meeting.created", "meeting.started"]) {
    const sent = await runCli(["trigger", "zoom", type], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
  }
  await until(() => app.requests.length >= 1 && /"kind":"delivery"/.test(dev.stdout()), dev.stdout());
  const r = app.requests[0]!;
  assert.ok(await verify("zoom", { url: "", headers: r.headers, body: r.body }, { secret, publicKeys: {} }));
  assert.equal(await dev.stop(), 0);
  const objects = dev.stdout().trim().split("\n").map((l) => JSON.parse(l));
  const [created] = await readEvents(tmp.path);
  const about = objects.filter((o) => o.id === created!.id || o.event === created!.id);
  assert.deepEqual(about.map((o) => o.kind ?? "request"), ["request", "not-forwarded"], dev.stdout());
  assert.deepEqual(about[1], { kind: "not-forwarded", event: created!.id, endpoint: "zoom", targets: [] });
});

Deno.test("an app that reads a webhook and drops the connection: every time it got it is an attempt dev reports, and its retry time is true", async () => {
  await using tmp = await withTmpDir();
  // A raw keep-alive app: answers 200, except that it drops the connection after reading the second request.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const got: string[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      (async () => {
        const buf = new Uint8Array(65536);
        let text = "";
        try {
          while (true) {
            const n = await conn.read(buf);
            if (n === null) break;
            text += new TextDecoder().decode(buf.subarray(0, n));
            const end = text.indexOf("\r\n\r\n");
            const len = Number(/content-length: (\d+)/i.exec(text.slice(0, Math.max(end, 0)))?.[1] ?? 0);
            if (end < 0 || text.length < end + 4 + len) continue;
            got.push(text.slice(end + 4, end + 4 + len));
            text = text.slice(end + 4 + len);
            if (got.length === 2) break; // read, then dropped without a byte of answer
            await conn.write(new TextEncoder().encode("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
          }
        } catch { /* closed */ }
        conn.close();
      })();
    }
  })().catch(() => {});
  const port = (listener.addr as Deno.NetAddr).port;
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "wa", path: "/wa", method: "POST", ` +
      `provider: "meta", secret: "s", forward: { to: "http://127.0.0.1:${port}/wa", retry: { attempts: 3, backoff: [3000] } } }] };\n`,
  );
  try {
    await using dev = await startDev(tmp.path);
    for (const type of ["whatsapp.message", "whatsapp.status"]) {
      const sent = await runCli(["trigger", "meta", type], { cwd: tmp.path });
      assert.equal(sent.code, 0, sent.stderr);
    }
    await until(async () => got.length >= 3 && (await deliveries(tmp.path)).length >= 2, dev.stdout());
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await dev.stop(), 0);
    const [, second] = await readEvents(tmp.path);
    const attempts = (await deliveries(tmp.path)).filter((d) => d.event === second!.id);
    assert.equal(second!.bodyEncoding, "utf8");
    const times = got.filter((body) => body === second!.body).length;
    assert.deepEqual([times, attempts.length], [2, 2], dev.stdout());
    // The app accepts connections all along (it never restarted): the retry waits its 3 s, as the line says.
    assert.match(dev.stdout(), /attempt 1 [^\n]*closed[^\n]* retry in 3 s, sooner if your app restarts\n/);
    const [first, retry] = attempts as { startedAt: string; durationMs: number }[];
    const waited = Date.parse(retry!.startedAt) - Date.parse(first!.startedAt) - first!.durationMs;
    assert.ok(waited >= 2900, `the retry went after ${waited} ms, not the 3 s said`);
  } finally {
    listener.close();
    await serving;
  }
});
