/**
 * The first minutes of a new user, as README.md tells them: the CLI as a subprocess in an empty temp dir.
 * @module
 */
import assert from "node:assert/strict";
import { readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("`trigger github push` reaches a dev on the built-in starter config (no hooktap.config.ts), as it does once init wrote the same config", async () => {
  await using tmp = await withTmpDir();
  await using dev = await startDev(tmp.path, [], { permissions: ["-A"] });
  assert.match(dev.stderr(), /using the built-in starter config/);
  const r = await runCli(["trigger", "github", "push"], { cwd: tmp.path, permissions: ["-A"] });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout + r.stderr, new RegExp(`POST http://127\\.0\\.0\\.1:${dev.port}/webhook .*\\n.*200`));
  assert.doesNotMatch(r.stderr, /No endpoint/);
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.endpoint, "default");
  assert.equal(events[0]!.path, "/webhook");
  assert.equal(await dev.stop(), 0);
});

Deno.test("`trigger` run where the endpoint's secret variable is unset says so (set it here, as for dev), not to add a `secret`", async () => {
  await using tmp = await withTmpDir();
  const variable = "HOOKTAP_FIRST_RUN_UNSET_SECRET";
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "github", path: "/github", method: "POST", ` +
      `secret: Deno.env.get(${JSON.stringify(variable)}) }] };\n`,
  );
  // dev has the variable (its terminal exported it); the trigger's shell does not.
  await using dev = await startDev(tmp.path, [], { permissions: ["-A"], env: { [variable]: "s3cret" } });
  const r = await runCli(["trigger", "github", "push"], { cwd: tmp.path, permissions: ["-A"] });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /warning: sending unsigned: endpoint "github" sets `secret` from an environment variable that is not set where this runs; set it here \(as for dev\), or give --secret/,
  );
  assert.doesNotMatch(r.stderr, /set `secret` on the endpoint/);
  assert.equal(await dev.stop(), 0);
});

Deno.test("dev's 'gave up' command for an event whose sender hooktap did not recognise leaves out --resign (which replay refuses for it), and works as printed", async () => {
  await using tmp = await withTmpDir();
  let status = 400;
  let received = 0;
  await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.arrayBuffer();
    received++;
    return new Response(
      status === 400 ? "Webhook Error: No stripe-signature header value was provided." : "ok",
      {
        status,
      },
    );
  });
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "stripe", path: "/webhooks/stripe", method: "POST", ` +
      `secret: "whsec_test", forward: "http://127.0.0.1:${app.addr.port}/webhooks/stripe" }] };\n`,
  );
  await using dev = await startDev(tmp.path, [], { permissions: ["-A"] });
  // An unsigned request (what `trigger stripe ...` sends when its shell lacks the secret).
  const sent = await fetch(`${dev.url}/webhooks/stripe`, {
    method: "POST",
    body: '{"type":"payment_intent.succeeded"}',
  });
  assert.equal(sent.status, 200);
  await sent.body?.cancel();
  const deadline = Date.now() + 15_000;
  while (!/gave up/.test(dev.stdout() + dev.stderr()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const printed = (dev.stdout() + dev.stderr()).match(
    /gave up: hooktap (replay --undelivered [^\n]*?) sends it again/,
  );
  assert.ok(printed, dev.stdout() + dev.stderr());
  assert.doesNotMatch(printed[1]!, /--resign/);
  status = 200;
  const words = printed[1]!.split(" ");
  const again = await runCli(words, { cwd: tmp.path, permissions: ["-A"] });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(received, 2);
  // Asked for anyway, --resign is refused with the way that works.
  const id = (await readEvents(tmp.path))[0]!.id as string;
  const resign = await runCli(["replay", id, "--resign"], { cwd: tmp.path, permissions: ["-A"] });
  assert.equal(resign.code, 1);
  assert.match(
    resign.stderr,
    /Cannot re-sign evt_\S+: hooktap did not recognise a signature scheme on this event \(send it without --resign: it goes as stored\)\./,
  );
  assert.equal(received, 2);
  assert.equal(await dev.stop(), 0);
});

Deno.test("doctor with the config's port taken by another program does not tell to just start dev (it would fail to bind)", async () => {
  await using tmp = await withTmpDir();
  await using other = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("hi"),
  );
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: ${other.addr.port}, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
  );
  const r = await runCli(["doctor", "--json"], { cwd: tmp.path, permissions: ["-A"] });
  assert.equal(r.code, 1, r.stderr);
  const checks = JSON.parse(r.stdout).checks as { id: string; status: string; fix?: string }[];
  const dev = checks.find((c) => c.id === "dev")!;
  assert.equal(dev.status, "fail");
  assert.equal(
    dev.fix,
    `port ${other.addr.port} is taken (the port check below says by what): free it or set another port, ` +
      "then start the receiver here: hooktap dev",
  );
  assert.equal(checks.find((c) => c.id === "port")!.status, "fail");
  // Started anyway, dev says the same: the port is in use.
  const start = await runCli(["dev"], { cwd: tmp.path, permissions: ["-A"], timeoutMs: 20_000 });
  assert.equal(start.code, 1);
  assert.match(
    start.stderr,
    new RegExp(`Cannot bind port ${other.addr.port} on 127\\.0\\.0\\.1: address already in use`),
  );
});

Deno.test("dev's banner with several endpoints tells each sender to use its own endpoint's path, not the first one's", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "github", path: "/webhooks/github", method: "POST" }, ` +
      `{ name: "stripe", path: "/webhooks/stripe", method: "POST" }] };\n`,
  );
  await using dev = await startDev(tmp.path, [], { permissions: ["-A"] });
  const banner = dev.stderr();
  assert.match(banner, /POST http:\/\/localhost:\d+\/webhooks\/github {2}\(github\)/);
  assert.match(banner, /POST http:\/\/localhost:\d+\/webhooks\/stripe {2}\(stripe\)/);
  assert.match(
    banner,
    /\n {8}then give each sender <tunnel URL> followed by its endpoint's path \(above\)\n/,
  );
  assert.doesNotMatch(banner, /give the sender <tunnel URL>\/webhooks\/github/);
  assert.equal(await dev.stop(), 0);
});

Deno.test("an option before the command names the fix: a command's option goes after it, -v and --verison mean -V, --version", async () => {
  await using tmp = await withTmpDir();
  const cases: [string[], string][] = [
    [
      ["-c", "x.ts", "logs", "-n", "1"],
      "unknown option '-c' before the command: options go after the command (hooktap logs -c x.ts -n 1).",
    ],
    [["-v"], "unknown option '-v' before the command (did you mean -V, --version?)."],
    [["--verison"], "unknown option '--verison' before the command (did you mean --version?)."],
    [["--hlep"], "unknown option '--hlep' before the command (did you mean --help?)."],
    [["--foo"], "unknown option '--foo' before the command."],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args, { cwd: tmp.path, permissions: ["--allow-read=."] });
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, `error: ${message} Run \`hooktap --help\` for the commands.\n`);
  }
  // The suggested command runs (no events yet: it says so and exits 0).
  await writeFile(
    tmp.path,
    "x.ts",
    `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
  );
  const fixed = await runCli(["logs", "-c", "x.ts", "-n", "1"], {
    cwd: tmp.path,
    permissions: ["--allow-read=."],
  });
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(fixed.stderr, /No events yet/);
});
