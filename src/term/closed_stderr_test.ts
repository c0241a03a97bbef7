import assert from "node:assert/strict";
import type { Output } from "../cli/output.ts";
import { createColors } from "./colors.ts";
import { toleratingClosedStderr } from "./closed_stderr.ts";

Deno.test("toleratingClosedStderr(): a failing stderr write is dropped, and so is every later one; stdout is untouched", () => {
  const written: string[] = [];
  let broken = false;
  let tries = 0;
  const base: Output = {
    out: (t) => written.push(`out:${t}`),
    outBytes: () => {},
    err: (t) => {
      tries++;
      if (broken) throw new Deno.errors.BrokenPipe("Broken pipe (os error 32)");
      written.push(`err:${t}`);
    },
    stdoutIsTerminal: false,
    columns: () => undefined,
    colors: createColors(false),
    errColors: createColors(false),
  };
  const output = toleratingClosedStderr(base);
  output.err("banner\n");
  broken = true;
  output.err("lost\n");
  output.err("lost too\n");
  output.out("line\n");
  assert.deepEqual(written, ["err:banner\n", "out:line\n"]);
  assert.equal(tries, 2, "no write is tried once stderr failed");
});
