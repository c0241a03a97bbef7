import assert from "node:assert/strict";
import { dev } from "../commands/dev/command.ts";
import { commandHelp } from "./help.ts";
import type { CommandSpec } from "./spec.ts";

Deno.test("dev --help lists the inspector switch as --no-ui, the form a user types", () => {
  const text = commandHelp(dev as unknown as CommandSpec, 100);
  assert.match(text, /^\s+--no-ui\s+do not serve the live inspector/m);
  assert.doesNotMatch(text, /^\s+--ui\s/m);
  assert.match(text, /^\s+-p, --port <port>/m, "other options keep their form");
});
