/**
 * `.ci/run` itself: run with every tool it calls replaced by a stand-in on PATH (so it installs nothing and
 * runs no real test), it must leave nothing in the temp directory and end with one `N passed, N failed` line
 * that adds up the checks and the test summary.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { cleanEnv, withTmpDir } from "./_helpers.ts";

const CI_RUN = fromFileUrl(new URL("../.ci/run", import.meta.url));

/** Stand-ins: `deno` and `npx` succeed; `npx … task test` prints a Deno-style summary line. */
const STANDINS: Record<string, string> = {
  deno: `case "$1" in --version) echo "deno 2.9.6 (stable)";; esac; exit 0`,
  npx: `echo "running 3 tests"; echo "ok | 3 passed | 0 failed (1s)"; exit 0`,
  "apt-get": `echo "apt-get must not run in this test" >&2; exit 1`,
  npm: `echo "npm must not run in this test" >&2; exit 1`,
  script: "exit 0",
  wrk: "exit 0",
  zsh: "exit 0",
  fish: "exit 0",
  chromium: "exit 0",
};

Deno.test(".ci/run leaves no temp file and ends with its N passed, N failed line", async () => {
  await using bin = await withTmpDir("hooktap_ci_bin_");
  await using tmp = await withTmpDir("hooktap_ci_tmp_");
  for (const [name, body] of Object.entries(STANDINS)) {
    const file = join(bin.path, name);
    await Deno.writeTextFile(file, `#!/bin/sh\n${body}\n`);
    await Deno.chmod(file, 0o755);
  }
  const out = await new Deno.Command("bash", {
    args: [CI_RUN],
    env: cleanEnv({ PATH: `${bin.path}:/usr/bin:/bin`, TMPDIR: tmp.path, HOME: tmp.path }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const lines = stdout.trimEnd().split("\n");
  // Five checks before the tests (frozen lock, fmt, lint, type check, publish dry run), 3 tests from the
  // summary, the benchmark smoke: 9. The stand-in `deno` passes them all.
  assert.match(lines.at(-1) ?? "", /^9 passed, 0 failed$/);
  assert.equal(out.code, 0, stdout + new TextDecoder().decode(out.stderr));
  const left = [];
  for await (const entry of Deno.readDir(tmp.path)) left.push(entry.name);
  assert.deepEqual(left, [], "files left in TMPDIR by .ci/run");

  // CI may send the output to a file: the summary must still be the file's last line, and the tests'
  // output must not overwrite the lines before it (a reopened /dev/fd/N would write from the file's start).
  await using logDir = await withTmpDir("hooktap_ci_log_");
  const logFile = join(logDir.path, "ci.log");
  const toFile = await new Deno.Command("bash", {
    args: ["-c", 'bash "$0" > "$1" 2>&1', CI_RUN, logFile],
    env: cleanEnv({ PATH: `${bin.path}:/usr/bin:/bin`, TMPDIR: tmp.path, HOME: tmp.path }),
    clearEnv: true,
  }).output();
  assert.equal(toFile.code, 0);
  const logged = (await Deno.readTextFile(logFile)).trimEnd().split("\n");
  assert.equal(logged.at(-1), "9 passed, 0 failed");
  assert.ok(logged.some((l) => l.startsWith("== format")), "the early lines are still there");
  assert.ok(logged.some((l) => l.startsWith("ok | 3 passed")), "the tests' output is in the log");
});
