import assert from "node:assert/strict";
import { escapeForTerminal, safeBlock, safeLine } from "./sanitize.ts";

Deno.test("escapeForTerminal() writes C1 controls and bidi/invisible characters as JSON escapes, same JSON", () => {
  const value = { body: "a\u009b31mb\u009d0;x\u009c\u202eevil\u200b\u2028\u061c" };
  const json = JSON.stringify(value);
  const safe = escapeForTerminal(json);
  assert.equal(safe, '{"body":"a\\u009b31mb\\u009d0;x\\u009c\\u202eevil\\u200b\\u2028\\u061c"}');
  assert.deepEqual(JSON.parse(safe), value);
  assert.equal(escapeForTerminal('{"plain":"text é"}'), '{"plain":"text é"}');
});

Deno.test("the text views escape U+061C, U+2028, U+2029, U+200B–U+200F and the bidi controls", () => {
  for (
    const ch of [
      "\u061c",
      "\u2028",
      "\u2029",
      "\u200b",
      "\u200c",
      "\u200d",
      "\u200e",
      "\u200f",
      "\u202e",
      "\u2067",
      "\ufeff",
    ]
  ) {
    assert.doesNotMatch(safeLine(`a${ch}b`), new RegExp(ch), `U+${ch.charCodeAt(0).toString(16)}`);
    assert.doesNotMatch(safeBlock(`a${ch}b`), new RegExp(ch));
  }
  assert.equal(safeLine("a\u2028b"), "a\\u2028b");
});
