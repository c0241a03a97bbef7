import assert from "node:assert/strict";
import { clipTo, displayWidth, padTo } from "./width.ts";

Deno.test("displayWidth and clipTo: ASCII one column a character, wide characters two, marks none", () => {
  assert.equal(displayWidth("evt_20261125_01ABC"), 18);
  assert.equal(displayWidth("/hooks/github?x=1"), 17);
  assert.equal(displayWidth("日本"), 4);
  assert.equal(displayWidth("e\u0301"), 1);
  assert.equal(displayWidth("a日b"), 4);
  assert.equal(clipTo("/hooks/github", 20), "/hooks/github");
  assert.equal(clipTo("/hooks/github", 8), "/hooks/…");
  assert.equal(displayWidth(clipTo("/hooks/github", 8)), 8);
  assert.equal(clipTo("日本語テキスト", 7), "日本語…");
  assert.equal(clipTo("abc", 0), "");
  assert.equal(clipTo("abc", 1), "…");
  assert.equal(padTo("ab", 5), "ab   ");
  assert.equal(padTo("日", 4, "right"), "  日");
});
