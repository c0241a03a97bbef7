/**
 * Every way to start `dev` gives V8 the flags `deno task dev` gives it: the
 * memory bound of a backlog (issue 36.5, tests/fault/backlog_test.ts,
 * bench/forward_backlog.ts) holds with the young generation capped
 * (`--max-semi-space-size`); V8's default young generation alone takes
 * ~15 MB more under a burst. The paths: `deno task dev`, `deno task install`'s
 * shim, `deno task compile`'s binary (flags baked in), and the npm package's
 * launcher.
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { createRequire } from "node:module";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const tasks = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks as Record<
  string,
  string | { command: string }
>;
const command = (name: string) => {
  const task = tasks[name];
  return typeof task === "string" ? task : task?.command ?? "";
};
const v8Flags = (text: string) => text.match(/--v8-flags=[^\s"',\]]+(?:,[^\s"',\]]+)*/g) ?? [];

Deno.test("deno task dev caps V8's young generation", () => {
  assert.deepEqual(v8Flags(command("dev")), ["--v8-flags=--max-semi-space-size=8"]);
});

/** The V8 flags of a command line's one `--v8-flags=` (Deno takes one). */
const v8List = (text: string) => {
  const flags = v8Flags(text);
  assert.equal(flags.length, 1, text);
  return flags[0]!.slice("--v8-flags=".length).split(",");
};

for (const name of ["install", "compile"]) {
  // The install's shim adds --no-lazy (each bundle's compiled functions kept in Deno's code cache).
  Deno.test(`deno task ${name} gives dev the V8 flags of deno task dev`, () => {
    for (const flag of v8List(command("dev"))) assert.ok(v8List(command(name)).includes(flag), command(name));
  });
}

Deno.test("the npm package's launcher gives dev the V8 flags of deno task dev", () => {
  // What the Node launcher runs for `dev`; tests/npm_launcher_test.ts checks the shell launcher postinstall
  // writes runs the same flags for every command.
  const launcher = createRequire(import.meta.url)("../npm/hooktap.cjs") as {
    denoArgs(lib: string, args: string[], cwd?: string): string[];
  };
  for (const args of [["dev"], ["dev", "--port", "0"]]) {
    const flags = launcher.denoArgs("/pkg/lib", args, "/work/app").filter((a) => a.startsWith("--v8-flags="));
    assert.deepEqual(flags, v8Flags(command("dev")), args.join(" "));
  }
});

Deno.test("every way to start dev opts in to Deno.serve's request.signal without the legacy abort", () => {
  // A relay reads request.signal to tell a sender that left (src/receiver/handler.ts); under the legacy
  // abort, Deno prints a warning the first time a handler reads it.
  const flag = "--unstable-no-legacy-abort";
  for (const name of ["dev", "hooktap", "install", "compile"]) {
    assert.ok(command(name).includes(` ${flag} `), name);
  }
  const launcher = createRequire(import.meta.url)("../npm/hooktap.cjs") as {
    denoArgs(lib: string, args: string[], cwd?: string): string[];
  };
  assert.ok(launcher.denoArgs("/pkg/lib", ["dev"], "/work/app").includes(flag));
});
