import assert from "node:assert/strict";
import { declarationOf, DECLARATIONS } from "./main.ts";
import { COMMANDS } from "./src/cli.ts";

Deno.test("main.ts imports each command's own declaration by its name: the command tree's, in its order", async () => {
  assert.deepEqual(Object.keys(DECLARATIONS), COMMANDS.map((c) => c.name));
  for (const spec of COMMANDS) assert.equal(await declarationOf(spec.name), spec, spec.name);
  for (const word of [undefined, "", "help", "-h", "--help", "-V", "trgger", "toString", "__proto__"]) {
    assert.equal(await declarationOf(word), undefined, String(word));
  }
});
