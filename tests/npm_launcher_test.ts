/**
 * The npm launcher's permission table (npm/hooktap.cjs): every command of the command tree has its own
 * entry, so a new command does not run under the read-only fallback and fail on its first network or write
 * call once installed from npm. The installed flows are run end to end in tests/install_test.ts.
 * @module
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { PROGRAM } from "../src/cli.ts";

const require = createRequire(import.meta.url);
const launcher = require("../npm/hooktap.cjs") as {
  PERMISSIONS: Record<string, string[]>;
  permissionFlags(args: string[]): string[];
};

Deno.test("npm launcher: every command of the tree has its permissions (none falls back to read-only)", () => {
  const missing = PROGRAM.commands.map((c) => c.name).filter((name) => !(name in launcher.PERMISSIONS));
  assert.deepEqual(missing, [], `add these commands to PERMISSIONS in npm/hooktap.cjs: ${missing}`);
});

Deno.test("npm launcher: trigger gets the network and the store; hub gets KV and its --kv directory", () => {
  const trigger = launcher.permissionFlags(["trigger", "github", "push", "--body-file", "/tmp/x/body.json"]);
  assert.ok(trigger.includes("--allow-net"), trigger.join(" "));
  assert.ok(trigger.includes("--allow-write=.hooktap"), trigger.join(" "));
  assert.ok(trigger.includes("--allow-read=.,/tmp/x/body.json"), trigger.join(" "));
  const hub = launcher.permissionFlags(["hub", "serve", "--kv", "/srv/hub/hub.kv", "--cert=/etc/c.pem"]);
  assert.ok(hub.includes("--unstable-kv"), hub.join(" "));
  assert.ok(hub.includes("--allow-net"), hub.join(" "));
  assert.ok(hub.includes("--allow-write=.hooktap-hub,/srv/hub"), hub.join(" "));
  assert.ok(hub.includes("--allow-read=.,/etc/c.pem,/srv/hub"), hub.join(" "));
});
