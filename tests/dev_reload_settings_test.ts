/**
 * A config edit while `hooktap dev` runs that changes no route: an
 * endpoint's secret applies at once and the reload says so (it used to keep
 * the old secret and say "no endpoint changed"); a setting read only at start
 * (`retention`, `ui`, `server`, `hub`) is said not to apply until a restart; an
 * edit of a module the config imports reloads it too.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sign } from "@octokit/webhooks-methods";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";

const config = (secret: string, extra = "") =>
  `export default { port: 0, ${extra}endpoints: [{ name: "gh", path: "/gh", method: "POST", ` +
  `provider: "github", secret: ${JSON.stringify(secret)} }] };\n`;

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

async function sendSigned(url: string, secret: string, delivery: string): Promise<number> {
  const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
  const res = await fetch(`${url}/gh`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "ping",
      "x-github-delivery": delivery,
      "x-hub-signature-256": await sign(secret, body),
    },
    body,
  });
  await res.body?.cancel();
  return res.status;
}

async function verdicts(dir: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(dir, ".hooktap", "events.jsonl"));
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l).verdict?.status);
}

Deno.test("a reload that changes only an endpoint's secret applies it, and says so", async () => {
  await using tmp = await withTmpDir();
  const file = await writeFile(tmp.path, "hooktap.config.ts", config("old-secret"));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.equal(await sendSigned(dev.url, "new-secret", "1"), 200);
  await Deno.writeTextFile(file, config("new-secret"));
  await until("the reload", () => /Config reloaded/.test(dev.stderr()));
  assert.match(dev.stderr(), /Config reloaded:\n {2}~ POST \/gh \(gh\): signing changed/);
  assert.doesNotMatch(dev.stderr(), /no endpoint changed/);
  assert.doesNotMatch(dev.stderr(), /new-secret|old-secret/, "a secret is never printed");
  assert.equal(await sendSigned(dev.url, "new-secret", "2"), 200);
  assert.deepEqual(await verdicts(tmp.path), ["invalid", "valid"], "the new secret verifies the next event");
  assert.equal(await dev.stop(), 0);
});

Deno.test("a reload that changes retention says it applies only at the next start, and again until reverted", async () => {
  await using tmp = await withTmpDir();
  const file = await writeFile(tmp.path, "hooktap.config.ts", config("s"));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  await Deno.writeTextFile(file, config("s", `retention: { keep: 5 }, `));
  await until("the reload", () => /Config reloaded/.test(dev.stderr()));
  assert.match(
    dev.stderr(),
    /Config reloaded: no endpoint changed\.\n {2}retention changed: not applied, read only when hooktap dev starts; restart it \(Ctrl-C, then .*dev\) to use it\./,
  );
  const before = dev.stderr().length;
  await Deno.writeTextFile(file, config("s"));
  await until("the second reload", () => /Config reloaded/.test(dev.stderr().slice(before)));
  assert.doesNotMatch(
    dev.stderr().slice(before),
    /retention changed/,
    "back to what runs: nothing to restart",
  );
  assert.equal(await dev.stop(), 0);
});

Deno.test("an edit of a module the config imports reloads the config, and a broken one names that module", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `import { extra } from "./endpoints/extra.ts";\n` +
      `export default { port: 0, endpoints: [{ name: "a", path: "/a", method: "POST" }, ...extra] };\n`,
  );
  await Deno.mkdir(join(tmp.path, "endpoints"));
  const extra = await writeFile(tmp.path, "endpoints/extra.ts", "export const extra = [];\n");
  await using dev = await startDev(tmp.path, ["--quiet"]);
  const before = await fetch(`${dev.url}/b`, { method: "POST", body: "x" });
  await before.body?.cancel();
  assert.equal(before.status, 404);
  await Deno.writeTextFile(extra, `export const extra = [{ name: "b", path: "/b", method: "POST" }];\n`);
  await until("the reload", () => /Config reloaded/.test(dev.stderr()));
  assert.match(dev.stderr(), /Config reloaded:\n {2}\+ POST \/b \(b\)/);
  const after = await fetch(`${dev.url}/b`, { method: "POST", body: "x" });
  await after.body?.cancel();
  assert.equal(after.status, 200);
  await Deno.writeTextFile(extra, `export const extra = [{ name: "b", path: "/b"\n`);
  await until("the failed reload", () => /Config not reloaded/.test(dev.stderr()));
  assert.match(dev.stderr(), /Config not reloaded: .*endpoints\/extra\.ts/);
  assert.equal(await dev.stop(), 0);
});
