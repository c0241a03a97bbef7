/**
 * A `forward.ca` that cannot be read: the error names the endpoint, the path as written, where it was looked
 * for (resolved against the config file's folder) and the fix, for `dev` and `replay` alike.
 * @module
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("forward.ca missing: dev and replay name the endpoint, the path as written, where it was looked for and the fix", async () => {
  await using tmp = await withTmpDir();
  await Deno.mkdir(`${tmp.path}/conf`);
  await writeFile(
    tmp.path,
    "conf/hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "api", path: "/api", method: "POST", ` +
      `forward: { to: "https://localhost:3443/in", ca: "certs/ca.pem" } }] };\n`,
  );
  const real = await Deno.realPath(tmp.path);
  const expected = new RegExp(
    `Cannot read the forward\\.ca of endpoint "api" \\(target localhost:3443/in\\): ca: "certs/ca\\.pem" was ` +
      `looked for at ${real}/conf/certs/ca\\.pem \\(a relative path is read from the config file's folder, ` +
      `${real}/conf\\): no such file\\. Set ca to the CA certificate \\(PEM\\) that signed the app's ` +
      `certificate, absolute or relative to that folder`,
  );
  for (const args of [["dev", "--port", "0"], ["replay", "--undelivered"]]) {
    // Before: "Cannot read forward.ca …: No such file or directory (os error 2): readfile '…'".
    const r = await runCli([...args, "--config", "conf/hooktap.config.ts"], {
      cwd: tmp.path,
      timeoutMs: 20_000,
    });
    assert.notEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, expected, `${args[0]}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /os error 2/);
  }
});
