import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { cliArgs, MAIN, withTmpDir, writeFile } from "./_helpers.ts";

/**
 * The CLI run as a subprocess whose `Deno.version.deno` says `version` (set before main.ts loads, as the
 * only way to be an older Deno here): what a user of `deno task install`'s shim sees with that `deno`.
 */
async function runAs(version: string, cwd: string, args: string[]) {
  const wrapper = await writeFile(
    cwd,
    "as_old_deno.ts",
    `Object.defineProperty(Deno, "version", { value: { ...Deno.version, deno: ${
      JSON.stringify(version)
    } } });\n` +
      `const { run } = await import(${JSON.stringify(pathToFileURL(MAIN).href)});\n` +
      "await run(Deno.args);\n",
  );
  const argv = cliArgs(["-A"], args);
  argv[argv.indexOf(MAIN)] = wrapper;
  const out = await new Deno.Command(Deno.execPath(), {
    args: argv,
    cwd,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("an older Deno is refused before any command, naming the version it needs and how to upgrade (exit 1)", async () => {
  await using tmp = await withTmpDir();
  for (const args of [["logs"], ["init", "--yes"], ["--help"]]) {
    const r = await runAs("2.5.6", tmp.path, args);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /^error: hooktap needs Deno 2\.9\.0 or newer, and this is Deno 2\.5\.6\. Upgrade it \(deno upgrade,/,
    );
  }
  // Nothing was written: init did not run.
  assert.deepEqual([...Deno.readDirSync(tmp.path)].map((e) => e.name), ["as_old_deno.ts"]);
  // The release it is tested with runs.
  const ok = await runAs(Deno.version.deno, tmp.path, ["--version"]);
  assert.equal(ok.code, 0, ok.stderr);
});
