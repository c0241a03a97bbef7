/**
 * Twilio signs the URL it called, never the app's: every command hooktap gives for a Twilio event the app
 * refused re-signs it (`--resign`), so following it delivers.
 * @module
 */
import assert from "node:assert/strict";
import twilio from "twilio";
import { startApp, until } from "./_app.ts";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("Twilio: replay --undelivered's closing hint and dev's start note for given-up events add --resign, which delivers", async () => {
  await using tmp = await withTmpDir();
  const token = "twilio_given_up_token";
  let port = 0;
  // The app checks the signature with Twilio's own library, against its own URL.
  await using app = startApp(0, (req) => {
    const params = Object.fromEntries(new URLSearchParams(new TextDecoder().decode(req.body)));
    const signature = req.headers.find(([n]) => n.toLowerCase() === "x-twilio-signature")?.[1] ?? "";
    const ok = twilio.validateRequest(token, signature, `http://127.0.0.1:${port}/twilio`, params);
    return { status: ok ? 200 : 401 };
  });
  port = app.port;
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "sms", path: "/sms", method: "POST", ` +
      `provider: "twilio", secret: "${token}", forward: { to: "http://127.0.0.1:${port}/twilio", ` +
      `retry: false } }] };\n`,
  );
  {
    await using dev = await startDev(tmp.path);
    const sent = await runCli(["trigger", "twilio", "delivered"], { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
    await until(() => /gave up/.test(dev.stdout()), `the refusal\n${dev.stdout()}`);
    assert.equal(await dev.stop(), 0);
  }
  // dev's note at start for the given-up event: its command re-signs.
  {
    await using dev = await startDev(tmp.path);
    await until(() => /failed every delivery attempt/.test(dev.stderr()), `the start note\n${dev.stderr()}`);
    const note =
      `hooktap replay --undelivered --endpoint sms --target 127.0.0.1:${port}/twilio --resign sends it`;
    assert.ok(dev.stderr().includes(note), dev.stderr());
    assert.equal(await dev.stop(), 0);
  }
  // replay --undelivered as stored: refused again; its closing hint re-signs.
  const replay = await runCli(["replay", "--undelivered"], { cwd: tmp.path });
  assert.equal(replay.code, 1, replay.stderr);
  assert.match(replay.stderr, /signature of the URL their sender called, not your app's: add --resign/);
  const hint = replay.stderr.match(/Send them again once the app is fixed: (hooktap .*)\n/)?.[1];
  assert.equal(hint, "hooktap replay --undelivered --endpoint sms --resign", replay.stderr);
  // As printed, it delivers.
  const again = await runCli(hint!.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(again.code, 0, again.stderr); // the app's check passed: 200
});
