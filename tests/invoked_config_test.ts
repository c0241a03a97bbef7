/**
 * The commands hooktap suggests work when pasted, through the real CLI: they start the way the user ran
 * hooktap (HOOKTAP_INVOKED_AS, which the npm launcher sets: `./node_modules/.bin/hooktap`, `npx hooktap`)
 * and carry the config in use; doctor and trigger use the config the running dev started with when given
 * none; doctor names a hub's channel URL where senders use it; a pattern endpoint is shown as parts to
 * fill in, never as a literal `:provider` to curl.
 * @module
 */
import assert from "node:assert/strict";
import { LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";

const BIN = { HOOKTAP_INVOKED_AS: "./node_modules/.bin/hooktap" };
const NPX = { HOOKTAP_INVOKED_AS: "npx hooktap" };
const NOTHING = "http://127.0.0.1:9"; // nothing listens: no real tunnel on this machine interferes
const PERMS = [...LEAST_PRIVILEGE, "--allow-env"];
const TUNNELS = { HOOKTAP_NGROK_API: NOTHING, HOOKTAP_CLOUDFLARED_METRICS: NOTHING };

interface Check {
  id: string;
  status: string;
  summary: string;
  fix?: string;
  details?: string[];
}

async function doctor(cwd: string, env: Record<string, string>, args: string[] = []): Promise<Check[]> {
  const out = await runCli(["doctor", "--json", ...args], {
    cwd,
    permissions: PERMS,
    env: { ...TUNNELS, ...env },
  });
  return (JSON.parse(out.stdout) as { checks: Check[] }).checks;
}

const check = (checks: Check[], id: string) => checks.find((c) => c.id === id)!;
const ALT = `export default { port: 8787, endpoints: [\n` +
  `  { name: "github", path: "/github", method: ["POST", "GET"], provider: "github", secret: "s3cret" },\n` +
  `] };\n`;

Deno.test("the help's examples start as the user ran hooktap; its option prose still says hooktap", async () => {
  await using tmp = await withTmpDir();
  for (const [env, runner] of [[BIN, "./node_modules/.bin/hooktap"], [NPX, "npx hooktap"]] as const) {
    const help = await runCli(["dev", "--help"], { cwd: tmp.path, env, permissions: PERMS });
    assert.equal(help.code, 0, help.stderr);
    assert.ok(help.stdout.startsWith(`Usage: ${runner} dev `), help.stdout);
    assert.ok(help.stdout.includes(`\n  ${runner} dev --port 9000\n`), help.stdout);
    assert.match(help.stdout, /exposes\s+hooktap to your network/);
    assert.ok(!help.stdout.includes(`${runner} to your`), help.stdout);
  }
});

Deno.test("doctor and trigger use the config the running dev started with (--config), and say which", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "alt.config.ts", ALT);
  await using dev = await startDev(tmp.path, ["--config", "alt.config.ts"], { permissions: PERMS, env: BIN });
  const checks = await doctor(tmp.path, BIN);
  const config = check(checks, "config");
  assert.equal(config.status, "ok", JSON.stringify(checks));
  assert.match(
    config.summary,
    /alt\.config\.ts loads \(1 endpoint\): the config the running dev started with/,
  );
  assert.ok(!JSON.stringify(checks).includes("No hooktap.config.ts"), JSON.stringify(checks));
  assert.match(check(checks, "events").fix!, new RegExp(`localhost:${dev.port}/github`));

  // trigger, given no --config, sends into the running dev's github endpoint, signed with its secret.
  const sent = await runCli(["trigger", "github", "push"], { cwd: tmp.path, permissions: PERMS, env: BIN });
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stderr, /Using alt\.config\.ts, the config of the dev running here/);
  const logs = await runCli(["logs", "--json"], { cwd: tmp.path, permissions: PERMS });
  assert.match(logs.stdout, /"verdict":\{"status":"valid"/);
  // No endpoint of that config takes Stripe's events: the message names the file, not hooktap.config.ts.
  const stripe = await runCli(["trigger", "stripe", "invoice.paid"], {
    cwd: tmp.path,
    permissions: PERMS,
    env: BIN,
  });
  assert.notEqual(stripe.code, 0, stripe.stderr);
  assert.match(stripe.stderr, /No endpoint in \S*alt\.config\.ts receives Stripe events/);
  assert.match(
    stripe.stderr,
    /else start one: \.\/node_modules\/\.bin\/hooktap dev --config alt\.config\.ts/,
  );

  // With dev stopped, doctor's fixes start it with the config given.
  await dev.stop();
  const stopped = await doctor(tmp.path, BIN, ["--config", "alt.config.ts"]);
  assert.equal(
    check(stopped, "dev").fix,
    "start the receiver here: ./node_modules/.bin/hooktap dev --config alt.config.ts",
  );
});

Deno.test("trigger's hints start as the user runs hooktap and name the config, or that there is none", async () => {
  await using tmp = await withTmpDir();
  const noDev = await runCli(["trigger", "github", "push"], { cwd: tmp.path, permissions: PERMS, env: NPX });
  assert.notEqual(noDev.code, 0, noDev.stderr);
  assert.match(noDev.stderr, /start it \(npx hooktap dev\) in another terminal/);
  const unknown = await runCli(["trigger", "twilio", "message.received"], {
    cwd: tmp.path,
    permissions: PERMS,
    env: NPX,
  });
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /Run `npx hooktap trigger --list twilio`/);
});

Deno.test("a second dev's lock error and a live forward edit suggest commands that work when pasted", async () => {
  await using tmp = await withTmpDir();
  await using app = await startDev(tmp.path, [], { permissions: PERMS, env: NPX });
  const second = await runCli(["dev", "--port", "0"], { cwd: tmp.path, permissions: PERMS, env: NPX });
  assert.notEqual(second.code, 0);
  assert.match(second.stderr, /npx hooktap logs, inspect and replay work while it runs/);
  await app.stop();

  await writeFile(tmp.path, "alt.config.ts", ALT);
  await using dev = await startDev(tmp.path, ["--config", "alt.config.ts"], { permissions: PERMS, env: NPX });
  await writeFile(
    tmp.path,
    "alt.config.ts",
    ALT.replace(`secret: "s3cret"`, `secret: "s3cret", forward: "http://127.0.0.1:9/x"`),
  );
  await until(() => /forward of "github" added/.test(dev.stderr()), "the reload's forward note");
  assert.match(
    dev.stderr(),
    /Restart hooktap dev \(Ctrl-C, then npx hooktap dev --config alt\.config\.ts\) to forward/,
  );
  assert.match(dev.stderr(), /\(npx hooktap replay ID --to URL --config alt\.config\.ts sends one\)/);
});

Deno.test("doctor in a hub project with dev stopped: the channel URL, not a tunnel's; its dev command", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", ALT);
  const url = "https://hub.example.com/c/ch_123";
  await writeFile(
    tmp.path,
    ".hooktap/hub.json",
    JSON.stringify({
      v: 1,
      url,
      channel: "ch_123",
      seq: 0,
      connected: false,
      waiting: 2,
      lastReceivedAt: null,
      updatedAt: new Date().toISOString(),
    }),
  );
  await writeFile(
    tmp.path,
    ".hooktap/unmatched.jsonl",
    JSON.stringify({ time: new Date().toISOString(), method: "POST", path: "/", query: "", status: 404 }) +
      "\n",
  );
  const checks = await doctor(tmp.path, NPX);
  const tunnel = check(checks, "tunnel");
  assert.equal(tunnel.status, "ok", JSON.stringify(tunnel));
  assert.match(
    tunnel.summary,
    /No tunnel needed: .* through its hub \(senders use https:\/\/hub\.example\.com\/c\/ch_123\//,
  );
  assert.equal(
    check(checks, "hub").fix,
    `events wait at the hub until you run: npx hooktap dev --hub ${url} (with HOOKTAP_HUB_TOKEN set)`,
  );
  assert.match(check(checks, "senders").fix!, new RegExp(`\\(${url}/github, endpoint "github"\\)`));
  assert.match(check(checks, "events").fix!, new RegExp(`uses its hub's channel URL, ${url}/github;`));
  assert.ok(!JSON.stringify(checks).includes("<tunnel URL>"), JSON.stringify(checks));
});

Deno.test("doctor with a pattern endpoint: the parts to fill in, never a curl to a literal :provider", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 8787, endpoints: [{ name: "hooks", path: "/hooks/:provider", method: "POST" }] };\n`,
  );
  await writeFile(
    tmp.path,
    ".hooktap/unmatched.jsonl",
    JSON.stringify({
      time: new Date().toISOString(),
      method: "POST",
      path: "/hooks",
      query: "",
      status: 404,
    }) +
      "\n",
  );
  const checks = await doctor(tmp.path, NPX);
  const text = JSON.stringify(checks);
  assert.ok(!text.includes(":provider"), text);
  assert.match(check(checks, "senders").summary, /your sender's URL lacks \/<provider>/);
  assert.match(
    check(checks, "events").fix!,
    /\/hooks\/<provider>; or send a test to it with each <…> filled in/,
  );
  assert.ok(!check(checks, "events").fix!.includes("curl"), text);
});

Deno.test("doctor's check of unmatched requests names the method the endpoint needs", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", ALT);
  await writeFile(
    tmp.path,
    ".hooktap/unmatched.jsonl",
    JSON.stringify({ time: new Date().toISOString(), method: "PUT", path: "/", query: "", status: 404 }) +
      "\n",
  );
  const senders = check(await doctor(tmp.path, NPX), "senders");
  assert.match(senders.summary, /lacks \/github, and \/github takes POST, GET, not PUT/);
  assert.match(senders.fix!, /and send POST or GET$/);
});
