/**
 * dev's "gave up" command re-signs (`--resign`) only an event whose signature was valid at receipt, as the
 * forwarder renews only those (src/send/resign_stale.ts): for one that arrived expired it sends the event as
 * received, since a fresh signature would be one its sender never made; so do the start note and doctor.
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
  // After a restart, the note for the two given up (one arrived valid, one expired) re-signs neither: its one
  // command would sign the expired one afresh too. doctor's command agrees.
  await using again = await startDev(tmp.path);
  await until(
    () => /failed every delivery attempt/.test(again.stderr()),
    `the start note\n${again.stderr()}`,
  );
  const note = again.stderr().split("\n").find((l) => /failed every delivery attempt/.test(l))!;
  assert.match(note, /2 events of endpoint pay .* hooktap replay --undelivered .* sends them again/, note);
  assert.doesNotMatch(note, /--resign/, note);
  const doctor = await runCli(["doctor"], {
    cwd: tmp.path,
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"],
  });
  assert.match(doctor.stdout + doctor.stderr, /given up: 2 events/);
  assert.doesNotMatch(
    (doctor.stdout + doctor.stderr).split("\n").filter((l) => /replay --undelivered/.test(l)).join("\n"),
    /--resign/,
  );
  assert.equal(await again.stop(), 0);
});
