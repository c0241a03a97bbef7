/**
 * The library's entry points pass `deno doc --lint`: every export has JSDoc, and no public type names a type
 * the package does not export (what JSR's score and `deno doc` readers see). `createHandler` lost its JSDoc
 * once to a function written between the two; this catches such a slip.
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";

const ROOT = fromFileUrl(new URL("..", import.meta.url));

Deno.test("`deno doc --lint mod.ts src/testing/mod.ts main.ts` (the three entry points) finds nothing", async () => {
  // The subprocess inherits this environment (proxies, CA certificates, npm_config_*).
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", "mod.ts", "src/testing/mod.ts", "main.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, text);
});
