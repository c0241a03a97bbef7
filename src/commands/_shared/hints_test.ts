import assert from "node:assert/strict";
import { invokedAs, shellQuote, suggestCommand } from "./hints.ts";

Deno.test("invokedAs() is the launcher's HOOKTAP_INVOKED_AS when it is a plain command, else hooktap", () => {
  assert.equal(invokedAs(() => "npx hooktap"), "npx hooktap");
  assert.equal(invokedAs(() => "npx hooktap@1.4.0"), "npx hooktap@1.4.0");
  assert.equal(invokedAs(() => "deno task hooktap"), "deno task hooktap");
  assert.equal(invokedAs(() => undefined), "hooktap");
  assert.equal(invokedAs(() => ""), "hooktap");
  assert.equal(invokedAs(() => "hooktap; rm -rf ~"), "hooktap");
  assert.equal(invokedAs(() => "npx\u001b[2Jhooktap"), "hooktap");
  assert.equal(invokedAs(() => "npx something-else"), "hooktap");
  assert.equal(
    invokedAs(() => {
      throw new Deno.errors.NotCapable("Requires env access");
    }),
    "hooktap",
  );
});

Deno.test("shellQuote() gives a POSIX shell back the same words", async () => {
  const words = ["plain", "a b", "it's", "$HOME", "`x`", "a\\b", '"q"', "", "x=1", "*", "new\nline", "ünï"];
  const line = suggestCommand(words, "hooktap");
  const r = await new Deno.Command("sh", {
    args: ["-c", `for w in ${line.slice("hooktap ".length)}; do printf '%s\\0' "$w"; done`],
  }).output();
  assert.equal(r.code, 0);
  assert.deepEqual(new TextDecoder().decode(r.stdout).split("\0").slice(0, -1), words);
  assert.equal(shellQuote("--endpoint"), "--endpoint");
  assert.equal(shellQuote("http://127.0.0.1:3000/hook?a=1"), "'http://127.0.0.1:3000/hook?a=1'");
});
