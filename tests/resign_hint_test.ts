/**
 * dev's "gave up" command re-signs (`--resign`) only an event whose signature was valid at receipt, as the
 * forwarder renews only those (src/send/resign_stale.ts): for one that arrived expired it sends the event as
 * received, since a fresh signature would be one its sender never made.
 * @module
 */
import assert from "node:assert/strict";
import { startApp, until } from "./_app.ts";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("dev's gave-up command: --resign for a signature valid at receipt, not for one that arrived expired", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 400 })); // an app whose signature check refuses everything
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "pay", path: "/pay", method: "POST", ` +
      `provider: "stripe", secret: "whsec_hint", forward: { to: "http://127.0.0.1:${app.port}/hook", ` +
      `retry: false } }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const lineOf = async (args: string[]) => {
    const before = (dev.stdout().match(/gave up/g) ?? []).length;
    const sent = await runCli(["trigger", "stripe", "payment_intent.succeeded", ...args], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
    await until(
      () => (dev.stdout().match(/gave up/g) ?? []).length > before,
      `a gave-up line\n${dev.stdout()}`,
    );
    return dev.stdout().split("\n").filter((l) => /gave up/.test(l)).at(-1)!;
  };
  const valid = await lineOf([]);
  assert.match(valid, /--resign sends it again/, valid);
  const expired = await lineOf(["--stale"]);
  assert.match(expired, /gave up.*: hooktap replay .* sends it again/, expired);
  assert.doesNotMatch(expired, /--resign/, expired);
  assert.equal(await dev.stop(), 0);
});
