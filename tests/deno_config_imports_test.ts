/**
 * A config of a Node project run by a Deno install of hooktap: the test runs main.ts with the checkout's
 * deno.json (as `deno task dev` does; `deno task install`'s import map maps the same names, tests/install_test.ts):
 * `import { defineConfig } from "hooktap"` (what the npm package's users write) loads, and a package the
 * project has in node_modules, which a Deno install cannot read, is named as installed, with the npm package's
 * command, never as "not installed".
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs, runCli, withTmpDir, writeFile } from "./_helpers.ts";
import { HAS_SCRIPT } from "./_pty.ts";

/** `deno task install`'s permissions: it reads anywhere (the config's import of "hooktap" reads mod.ts). */
const INSTALL = ["--allow-read", "--allow-net", "--allow-env", "--allow-write=.hooktap,hooktap.config.ts"];

Deno.test('Deno install: a config importing defineConfig from "hooktap" loads', async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    'import { defineConfig } from "hooktap";\n' +
      'export default defineConfig({ port: 0, endpoints: [{ name: "x", path: "/x", method: "POST" }] });\n',
  );
  const logs = await runCli(["logs", "--endpoint", "x"], { cwd: tmp.path, permissions: INSTALL });
  assert.equal(logs.code, 0, logs.stderr);
  assert.doesNotMatch(logs.stderr, /failed to load|not installed/);
});

Deno.test("Deno install: a package installed in node_modules is named as installed, with npx hooktap", async () => {
  await using tmp = await withTmpDir();
  await Deno.mkdir(join(tmp.path, "node_modules", "secrets-pkg"), { recursive: true });
  await writeFile(
    join(tmp.path, "node_modules", "secrets-pkg"),
    "package.json",
    '{ "name": "secrets-pkg", "type": "module", "exports": "./index.js" }\n',
  );
  await writeFile(join(tmp.path, "node_modules", "secrets-pkg"), "index.js", 'export const path = "/x";\n');
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    'import { path } from "secrets-pkg";\nexport default { port: 0, endpoints: [{ name: "x", path, method: "POST" }] };\n',
  );
  const dev = await runCli(["dev", "--port", "0"], { cwd: tmp.path, permissions: INSTALL });
  assert.equal(dev.code, 78, dev.stderr); // EX_CONFIG
  assert.match(
    dev.stderr,
    /imports the package "secrets-pkg", which is installed in \S+node_modules, but this hooktap runs on Deno without reading node_modules/,
  );
  assert.match(dev.stderr, /npx hooktap dev/);
  assert.doesNotMatch(dev.stderr, /not installed|npm install/);
  // Absent from node_modules, it is still "not installed", with the npm install that adds it.
  await Deno.remove(join(tmp.path, "node_modules"), { recursive: true });
  const missing = await runCli(["dev", "--port", "0"], { cwd: tmp.path, permissions: INSTALL });
  assert.equal(missing.code, 78, missing.stderr);
  assert.match(missing.stderr, /"secrets-pkg", which is not installed in this project/);
});

Deno.test({
  name:
    "a package a config imports and nothing installs, under --allow-read=. on a terminal: refused at once, " +
    "no permission prompt for the folders above",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "package.json", '{ "name": "app" }\n');
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      'import "nopkg";\nexport default { port: 0, endpoints: [{ name: "x", path: "/x", method: "POST" }] };\n',
    );
    // Deno's own prompt (the tests' runs pass --no-prompt): a terminal, and read access to `.` only.
    const args = cliArgs(["--allow-net", "--allow-read=.", "--allow-env"], ["dev", "--port", "0"])
      .filter((a) => a !== "--no-prompt");
    const command = [Deno.execPath(), ...args].map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ");
    const child = new Deno.Command("script", {
      args: ["-qec", command, "/dev/null"],
      cwd: tmp.path,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000); // a prompt waits for an answer
    const out = await child.output();
    clearTimeout(timer);
    const screen = new TextDecoder().decode(out.stdout);
    assert.doesNotMatch(screen, /Deno requests/);
    assert.match(screen, /"nopkg", which is not installed in this project/);
    assert.equal(out.code, 78, screen);
  },
});

Deno.test("Deno install: a config that needs a permission hooktap lacks says what to do, not Deno's flag", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    'const sha = new Deno.Command("git", { args: ["rev-parse", "HEAD"] }).outputSync();\n' +
      'export default { port: 0, endpoints: [{ name: "x", path: "/x", method: "POST" }] };\n',
  );
  const dev = await runCli(["dev", "--port", "0"], {
    cwd: tmp.path,
    permissions: INSTALL,
    timeoutMs: 30_000,
  });
  assert.equal(dev.code, 78, dev.stderr);
  assert.match(dev.stderr, /failed to load: NotCapable: Requires run access to "git"/);
  assert.match(dev.stderr, /runs with hooktap's permissions, and this one is not among them/);
  assert.match(dev.stderr, /pass its result in an environment variable/);
  assert.doesNotMatch(dev.stderr, /fix the error above in the file/);
});
