/**
 * A config that does not validate: each problem names its field and, where the file's literals tell it for
 * sure, the line it is on; where a spread could hold the field, no line is guessed. Through the real CLI.
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("hooktap dev with a config that does not validate: each problem says its line where the file tells it", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `// hooktap config
const base = { method: "POST" };

export default {
  port: 8787,
  endpoints: [
    { name: "gh", path: "/gh", method: "POST" },
    {
      name: "st",
      path: "st",
      methd: "POST",
    },
    { ...base, name: "x", path: "x" },
    { ...base, name: "y" },
  ],
};
`,
  );
  const r = await runCli(["dev", "--port", "0"], { cwd: tmp.path, timeoutMs: 20_000 });
  assert.equal(r.code, 78, r.stderr);
  assert.match(r.stderr, /hooktap\.config\.ts has 5 problems:/);
  assert.match(
    r.stderr,
    /- endpoints\[1\]\.methd is not an endpoint field: did you mean "method"\? \(known: [^)]*\) \(line 11\)\n/,
  );
  assert.match(
    r.stderr,
    /- endpoints\[1\]\.path must be a string starting with "\/", got "st": use "\/st" \(line 10\)\n/,
  );
  // Missing: the line of the object that lacks it.
  assert.match(
    r.stderr,
    /- endpoints\[1\]\.method must be an HTTP method name .*\(the field is missing\) \(line 8\)\n/,
  );
  // Written after the spread: its own line.
  assert.match(
    r.stderr,
    /- endpoints\[2\]\.path must be a string starting with "\/", got "x": use "\/x" \(line 13\)\n/,
  );
  // Missing where the spread could have held it: named, and no line guessed.
  assert.match(
    r.stderr,
    /- endpoints\[3\]\.path must be a string starting with "\/", got nothing \(the field is missing\): use "\/webhook"\n/,
  );
});
