/**
 * Found by a Node developer's day with hooktap (an Express app that verifies with Stripe's and Standard
 * Webhooks' own libraries): what `dev` and the commands say must be true and give the fix. Each test holds a
 * defect the audit found; the real CLI in a temp dir, apps on loopback.
 */
import assert from "node:assert/strict";
import Stripe from "stripe";
import { Webhook } from "standardwebhooks";
import { startApp, until, unusedPort } from "./_app.ts";
import { readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("an app that refuses a valid signature with 400 (Stripe's and Standard Webhooks' documented answer) is asked about its secret", async () => {
  await using tmp = await withTmpDir();
  const stripe = new Stripe("sk_test_audit");
  // The app verifies with other secrets than the config's (a .env out of date), and answers as the providers'
  // docs do: `res.status(400).send(`Webhook Error: ${err.message}`)`.
  let answered = 0;
  await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.text();
    const headers = Object.fromEntries(req.headers);
    try {
      if (new URL(req.url).pathname === "/stripe") {
        await stripe.webhooks.constructEventAsync(body, headers["stripe-signature"]!, "whsec_the_apps");
      } else {
        new Webhook("whsec_" + btoa("the app's own key, 24 by")).verify(body, headers);
      }
      return new Response("ok");
    } catch (error) {
      return new Response(`Webhook Error: ${(error as Error).message}`, { status: 400 });
    } finally {
      answered++;
    }
  });
  const appPort = app.addr.port;
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [` +
      `{ name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: "whsec_the_configs", ` +
      `forward: "http://127.0.0.1:${appPort}/stripe" },` +
      `{ name: "std", path: "/std", method: "POST", provider: "standard-webhooks", ` +
      `secret: "whsec_${
        btoa("the config's own key, 24")
      }", forward: "http://127.0.0.1:${appPort}/std" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  for (const [provider, event] of [["stripe", "invoice.paid"], ["standard-webhooks", "user.created"]]) {
    const sent = await runCli(["trigger", provider!, event!], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
  }
  await until(() => (dev.stdout().match(/<-- \[400\]/g) ?? []).length >= 2, `two 400s\n${dev.stdout()}`);
  const lines = dev.stdout().split("\n").filter((l) => l.includes("<-- [400]"));
  assert.equal(lines.length, 2, dev.stdout());
  for (const line of lines) {
    assert.match(
      line,
      /its signature checks with the endpoint's secret: does your app verify with the same one\?/,
      dev.stderr(),
    );
  }
  assert.equal(answered, 2);
});

Deno.test("a 400 that says nothing of a signature is not taken for a secret mismatch", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 400, body: "missing field: customer" }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "stripe", path: "/stripe", method: "POST", ` +
      `provider: "stripe", secret: "whsec_x", forward: "http://127.0.0.1:${app.port}/stripe" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const sent = await runCli(["trigger", "stripe", "invoice.paid"], { cwd: tmp.path });
  assert.equal(sent.code, 0, sent.stderr);
  await until(() => /<-- \[400\]/.test(dev.stdout()), `a 400\n${dev.stdout()}`);
  assert.doesNotMatch(dev.stdout(), /does your app verify with the same one/);
});

Deno.test("replay ID after the app moved and the config's forward URL changed: the refusal names the target it forwards to now", async () => {
  await using tmp = await withTmpDir();
  const old = startApp(0, () => ({ status: 200 }));
  await using moved = startApp(0, () => ({ status: 200, body: "moved app" }));
  const config = (port: number) =>
    `export default { port: 0, ui: false, endpoints: [{ name: "stripe", path: "/stripe", method: "POST", ` +
    `provider: "stripe", secret: "whsec_x", forward: "http://localhost:${port}/webhooks/stripe" }] };\n`;
  await writeFile(tmp.path, "hooktap.config.ts", config(old.port));
  {
    await using dev = await startDev(tmp.path);
    const sent = await runCli(["trigger", "stripe", "invoice.paid"], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
    await until(() => old.requests.length === 1, `the first delivery\n${dev.stdout()}`);
    assert.equal(await dev.stop(), 0);
  }
  await old.close();
  await writeFile(tmp.path, "hooktap.config.ts", config(moved.port));
  const id = String((await readEvents(tmp.path))[0]!.id);
  const replay = await runCli(["replay", id], { cwd: tmp.path });
  assert.equal(replay.code, 1, replay.stderr);
  assert.match(replay.stderr, new RegExp(`nothing listens on localhost:${old.port}\\. `));
  // The app runs, at its new URL: no "is your app running?" before saying so.
  assert.doesNotMatch(replay.stderr, /is your app running/, replay.stderr);
  const fix = `hooktap replay ${id} --target localhost:${moved.port}/webhooks/stripe`;
  assert.match(replay.stderr, /no longer a forward target of endpoint "stripe" in hooktap\.config\.ts/);
  assert.ok(replay.stderr.includes(fix), replay.stderr);
  // The command it gives sends it there.
  const again = await runCli(["replay", id, "--target", `localhost:${moved.port}/webhooks/stripe`], {
    cwd: tmp.path,
  });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(moved.requests.length, 1);
});

Deno.test("dev's start note for events a removed target gave up on sends them where the endpoint forwards now", async () => {
  await using tmp = await withTmpDir();
  await using old = startApp(0, () => ({ status: 400, body: "bad request" }));
  await using moved = startApp(0, () => ({ status: 200 }));
  const config = (port: number) =>
    `export default { port: 0, ui: false, endpoints: [{ name: "shop", path: "/shop", method: "POST", ` +
    `provider: "shopify", secret: "shpss_x", forward: "http://localhost:${port}/webhooks/shopify" }] };\n`;
  await writeFile(tmp.path, "hooktap.config.ts", config(old.port));
  {
    await using dev = await startDev(tmp.path);
    const sent = await runCli(["trigger", "shopify", "orders/create"], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
    await until(() => /gave up/.test(dev.stdout()), `the 400\n${dev.stdout()}`);
    assert.equal(await dev.stop(), 0);
  }
  await writeFile(tmp.path, "hooktap.config.ts", config(moved.port));
  await using dev = await startDev(tmp.path);
  await until(() => dev.stderr().includes("failed every delivery attempt"), `the note\n${dev.stderr()}`);
  const note = dev.stderr().split("\n").find((l) => l.includes("failed every delivery attempt")) ?? "";
  const command =
    `hooktap replay --undelivered --endpoint shop --target localhost:${old.port}/webhooks/shopify`;
  assert.ok(note.includes(`${command} sends it again`), dev.stderr());
  const to = `http://localhost:${moved.port}/webhooks/shopify`;
  assert.ok(
    dev.stderr().includes(
      `(localhost:${old.port}/webhooks/shopify is no longer a forward target of endpoint shop, which forwards ` +
        `to ${to} now: with --to ${to} the command sends it there.)`,
    ),
    dev.stderr(),
  );
  await dev.stop();
  // The command with that --to delivers it to the moved app.
  const again = await runCli([...command.split(" ").slice(1), "--to", to], { cwd: tmp.path });
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.equal(moved.requests.length, 1);
});

Deno.test("an unsigned request that waits past the tolerance for the app is forwarded unsigned, never signed by hooktap", async () => {
  await using tmp = await withTmpDir();
  // The first attempt fails (the app's 500 while it starts); the retry comes past the tolerance.
  let first = true;
  await using app = startApp(0, () => {
    const status = first ? 500 : 200;
    first = false;
    return { status };
  });
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "std", path: "/std", method: "POST", ` +
      `provider: "standard-webhooks", secret: "whsec_${btoa("the config's own key, 24")}", tolerance: 2, ` +
      `forward: { to: "http://127.0.0.1:${app.port}/std", retry: { attempts: 2, backoff: [2500] } } }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  // No webhook-* headers at all: anyone's POST, which the app must refuse.
  const r = await fetch(`${dev.url}/std`, { method: "POST", body: "not json, not signed" });
  await r.body?.cancel();
  assert.equal(r.status, 200);
  await until(() => app.requests.length >= 2, `the retry\n${dev.stdout()}`, 20_000);
  const names = app.requests[1]!.headers.map(([k]) => k.toLowerCase());
  assert.ok(!names.includes("webhook-signature"), `hooktap signed an unsigned request: ${names.join(", ")}`);
  assert.doesNotMatch(dev.stdout(), /re-signed/, dev.stdout());
});

Deno.test("dev's command for an unsigned event the app refused sends it as received, not signed with --resign", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 400, body: "Missing required headers" }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "std", path: "/std", method: "POST", ` +
      `provider: "standard-webhooks", secret: "whsec_${btoa("the config's own key, 24")}", ` +
      `forward: "http://127.0.0.1:${app.port}/std" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const r = await fetch(`${dev.url}/std`, { method: "POST", body: "not signed" });
  await r.body?.cancel();
  await until(() => /gave up/.test(dev.stdout()), `the 400\n${dev.stdout()}`);
  const line = dev.stdout().split("\n").find((l) => l.includes("gave up")) ?? "";
  assert.match(line, /hooktap replay --undelivered --endpoint std --target \S+ sends it again/);
  assert.doesNotMatch(line, /--resign/);
});

Deno.test("dev's start note for events that waited for a target since removed sends them where the endpoint forwards now", async () => {
  await using tmp = await withTmpDir();
  const gone = unusedPort(); // the app was stopped: nothing listens there
  await using moved = startApp(0, () => ({ status: 200 }));
  const config = (port: number) =>
    `export default { port: 0, ui: false, endpoints: [{ name: "shop", path: "/shop", method: "POST", ` +
    `provider: "shopify", secret: "shpss_x", forward: "http://localhost:${port}/webhooks/shopify" }] };\n`;
  await writeFile(tmp.path, "hooktap.config.ts", config(gone));
  {
    await using dev = await startDev(tmp.path);
    const sent = await runCli(["trigger", "shopify", "orders/create"], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
    await until(() => /nothing listens/.test(dev.stdout() + dev.stderr()), `the wait\n${dev.stdout()}`);
    assert.equal(await dev.stop(), 0);
  }
  await writeFile(tmp.path, "hooktap.config.ts", config(moved.port));
  await using dev = await startDev(tmp.path);
  await until(() => dev.stderr().includes("which this run does not forward to"), `the note\n${dev.stderr()}`);
  const command = `hooktap replay --undelivered --endpoint shop --target localhost:${gone}/webhooks/shopify`;
  // The command names the URL it waited for (as after a `dev --forward-to`); a line says where it goes now.
  assert.ok(dev.stderr().includes(`${command} --to http://localhost:${gone}/webhooks/shopify sends it.`));
  const to = `http://localhost:${moved.port}/webhooks/shopify`;
  assert.ok(dev.stderr().includes(`forwards to ${to} now: with --to ${to} the command sends it there.)`));
  await dev.stop();
  const again = await runCli([...command.split(" ").slice(1), "--to", to], { cwd: tmp.path });
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.equal(moved.requests.length, 1);
});

Deno.test("a secret read from a mistyped variable: dev names the variable and the set one it likely meant", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default {\n  port: 0,\n  ui: false,\n  endpoints: [\n` +
      `    { name: "shop", path: "/shop", method: "POST", provider: "shopify", ` +
      `secret: process.env.SHOPIFY_WEBHOK_SECRET },\n` +
      `    { name: "std", path: "/std", method: "POST", provider: "standard-webhooks", ` +
      `secret: Deno.env.get("HOOKTAP_AUDIT_UNSET") },\n  ],\n};\n`,
  );
  await using dev = await startDev(tmp.path, [], {
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"],
    env: { SHOPIFY_WEBHOOK_SECRET: "shpss_set_here" },
  });
  await until(() => (dev.stderr().match(/its secret is empty/g) ?? []).length >= 2, dev.stderr());
  assert.match(
    dev.stderr(),
    /endpoint "shop": its secret is empty \(endpoints\[0\]\.secret reads the variable SHOPIFY_WEBHOK_SECRET, which is not set where this runs; SHOPIFY_WEBHOOK_SECRET is: a typo\?\)/,
  );
  assert.match(
    dev.stderr(),
    /endpoint "std": its secret is empty \(endpoints\[1\]\.secret reads the variable HOOKTAP_AUDIT_UNSET, which is not set where this runs\)/,
  );
  // The secret's value is never printed.
  assert.doesNotMatch(dev.stderr(), /shpss_set_here/);
});

Deno.test("the app moves while dev runs: the reload's command for the events kept for the old URL sends them to the new", async () => {
  await using tmp = await withTmpDir();
  const gone = unusedPort(); // the app stopped here
  await using moved = startApp(0, () => ({ status: 200 }));
  const config = (port: number) =>
    `export default { port: 0, ui: false, endpoints: [{ name: "shop", path: "/shop", method: "POST", ` +
    `provider: "shopify", secret: "shpss_x", forward: "http://localhost:${port}/webhooks/shopify" }] };\n`;
  const file = await writeFile(tmp.path, "hooktap.config.ts", config(gone));
  await using dev = await startDev(tmp.path);
  const sent = await runCli(["trigger", "shopify", "orders/create"], { cwd: tmp.path });
  assert.equal(sent.code, 0, sent.stderr);
  await until(() => /nothing listens/.test(dev.stdout()), `the wait\n${dev.stdout()}`);
  await Deno.writeTextFile(file, config(moved.port));
  await until(() => /kept undelivered/.test(dev.stderr()), `the reload\n${dev.stderr()}`);
  const command =
    `hooktap replay --undelivered --endpoint shop --target localhost:${gone}/webhooks/shopify ` +
    `--to http://localhost:${moved.port}/webhooks/shopify`;
  assert.ok(dev.stderr().includes(`${command} sends them`), dev.stderr());
  // As printed, while dev runs: the moved app gets it once.
  const again = await runCli(command.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(again.code, 0, again.stderr + again.stdout);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(moved.requests.length, 1);
});

Deno.test("a reload that removes a target counts every event kept for it, those left in the store too", async () => {
  await using tmp = await withTmpDir();
  const gone = unusedPort();
  await using moved = startApp(0, () => ({ status: 200 }));
  const config = (port: number) =>
    `export default { port: 0, ui: false, endpoints: [{ name: "hook", path: "/hook", method: "POST", ` +
    `forward: "http://localhost:${port}/in" }] };\n`;
  const file = await writeFile(tmp.path, "hooktap.config.ts", config(gone));
  await using dev = await startDev(tmp.path);
  // 4 MiB each while nothing listens: two fill the target's 8 MiB window, the others wait in the store.
  const body = "x".repeat(4 * 1024 * 1024);
  for (let i = 0; i < 4; i++) {
    const r = await fetch(`${dev.url}/hook`, { method: "POST", body, signal: AbortSignal.timeout(20_000) });
    await r.body?.cancel();
    assert.equal(r.status, 200);
  }
  await until(() => /nothing listens/.test(dev.stdout()), `the wait\n${dev.stdout()}`);
  await Deno.writeTextFile(file, config(moved.port));
  await until(() => /kept undelivered/.test(dev.stderr()), `the reload\n${dev.stderr()}`);
  assert.match(dev.stderr(), /: 4 queued events were kept undelivered/, dev.stderr());
  assert.equal(moved.requests.length, 0, "kept, not sent elsewhere");
});
