/**
 * Forwarding the senders of the fourth audit (Shopify, Slack, Zoom, Meta,
 * Twilio, Discord) through the real CLI: events made by `hooktap trigger`,
 * `dev` forwarding them to an app on loopback, and the app checking each
 * signature as the sender's own library or documented scheme does
 * (tests/trigger/_verifiers.ts). Each test holds a defect the audit found.
 */
import assert from "node:assert/strict";
import { startApp, until } from "./_app.ts";
import { deliveries, readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { verify } from "./trigger/_verifiers.ts";

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
