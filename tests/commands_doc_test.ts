/** docs/commands.md is the command tree's help, regenerated (like the inspector's assets). */
import assert from "node:assert/strict";
import { COMMANDS_DOC, generateCommandsDoc } from "../scripts/commands_doc.ts";
import { PROGRAM } from "../src/cli.ts";
import { kebab } from "../src/cli/spec.ts";

Deno.test("docs/commands.md is up to date with the command tree (else run `deno task docs`)", async () => {
  const now = await Deno.readTextFile(COMMANDS_DOC);
  assert.ok(now === generateCommandsDoc(), "docs/commands.md is stale: run `deno task docs`");
});

Deno.test("the command reference has every command and every visible option", () => {
  const doc = generateCommandsDoc();
  for (const spec of PROGRAM.commands) {
    assert.ok(doc.includes(`## \`hooktap ${spec.name}\``), `no section for ${spec.name}`);
    for (const [key, option] of Object.entries(spec.options)) {
      if (option.hidden) continue;
      const flag = `--${kebab(key)}`;
      assert.ok(doc.includes(flag), `${spec.name}: option ${flag} is missing`);
    }
  }
});
