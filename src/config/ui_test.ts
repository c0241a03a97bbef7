import assert from "node:assert/strict";
import { validateConfig } from "./validate.ts";
import { ConfigError } from "../errors.ts";

const base = { port: 8787, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };

function issues(ui: unknown): readonly string[] {
  try {
    validateConfig({ ...base, ui }, "hooktap.config.ts");
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

Deno.test("config ui: absent means the receiver's port + 1, false turns it off, { port } picks it", () => {
  assert.deepEqual(validateConfig(base, null).ui, { port: null });
  assert.equal(validateConfig({ ...base, ui: false }, null).ui, false);
  assert.deepEqual(validateConfig({ ...base, ui: { port: 9000 } }, null).ui, { port: 9000 });
  assert.deepEqual(validateConfig({ ...base, ui: {} }, null).ui, { port: null });
});

Deno.test("config ui: wrong shapes are reported with their field path and the fix", () => {
  assert.match(issues(true)[0]!, /^ui must be false \(no inspector\) or \{ port: 8788 \}, got true/);
  assert.match(issues({ port: 70000 })[0]!, /^ui\.port must be an integer from 0 to 65535/);
  assert.match(issues({ port: 8787 })[0]!, /^ui\.port must differ from port \(8787\).*use 8788/);
  assert.match(issues({ prot: 1 })[0]!, /^ui\.prot is not a ui field: did you mean "port"\?/);
});
