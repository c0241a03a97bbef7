/**
 * A URL option with a user name or password (`http://user:pw@host/`): hooktap sends no URL's credentials (a
 * request carries none) and would print them on every line, so every command refuses it, says what to give
 * instead, and never repeats the password.
 * @module
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir, writeFile } from "./_helpers.ts";

const URL_WITH = "http://me:hunter2@127.0.0.1:9/hook";

Deno.test("replay --to, dev --forward-to and export --to with credentials in the URL: refused, the password never printed", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
  );
  for (
    const args of [
      ["replay", "evt_x", "--to", URL_WITH],
      ["dev", "--port", "0", "--forward-to", URL_WITH],
      ["export", "--format", "curl", "--to", URL_WITH],
    ]
  ) {
    const r = await runCli(args, { cwd: tmp.path });
    const flag = args.at(-2)!;
    assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
    assert.ok(
      r.stderr.includes(`${flag} holds a user name or password, which hooktap does not send`),
      `${args[0]}: ${r.stderr}`,
    );
    assert.ok(r.stderr.includes(`give ${flag} http://127.0.0.1:9/hook and`), r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /hunter2/, `${args[0]}: the password is never printed`);
  }
});
