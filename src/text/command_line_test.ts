import assert from "node:assert/strict";
import { invokedAs, suggestCommand } from "./command_line.ts";
import { configWords } from "./config_words.ts";

Deno.test("invokedAs() takes the launcher's prefix: npx, the PATH, a bin path (quoted when it needs it)", () => {
  assert.equal(invokedAs(() => "npx hooktap"), "npx hooktap");
  assert.equal(invokedAs(() => "./node_modules/.bin/hooktap"), "./node_modules/.bin/hooktap");
  assert.equal(
    invokedAs(() => "/opt/my app/node_modules/.bin/hooktap"),
    "'/opt/my app/node_modules/.bin/hooktap'",
  );
  assert.equal(invokedAs(() => "rm -rf ~; hooktap"), "hooktap");
  assert.equal(invokedAs(() => "/tmp/x\nhooktap"), "hooktap");
  assert.equal(invokedAs(() => undefined), "hooktap");
  assert.equal(
    suggestCommand(["dev", "--config", "my config.ts"], "./node_modules/.bin/hooktap"),
    "./node_modules/.bin/hooktap dev --config 'my config.ts'",
  );
});

Deno.test("configWords() names a config other than the default, relative to the directory when inside it", () => {
  assert.deepEqual(configWords(null, "/work/app"), []);
  assert.deepEqual(configWords("/work/app/hooktap.config.ts", "/work/app"), []);
  assert.deepEqual(configWords("hooktap.config.ts", "/work/app"), []);
  assert.deepEqual(configWords("/work/app/alt.config.ts", "/work/app"), ["--config", "alt.config.ts"]);
  assert.deepEqual(configWords("cfg/alt.config.ts", "/work/app"), ["--config", "cfg/alt.config.ts"]);
  assert.deepEqual(configWords("/srv/alt.config.ts", "/work/app"), ["--config", "/srv/alt.config.ts"]);
});
