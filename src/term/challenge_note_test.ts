import assert from "node:assert/strict";
import { agrees } from "./challenge_note.ts";

Deno.test("agrees() takes the same text, the same JSON in any key order, and Slack's challenge alone", () => {
  assert.ok(agrees('{"challenge":"abc"}', '{ "challenge": "abc" }\n'));
  assert.ok(agrees('{"challenge":"abc"}', "abc"));
  assert.ok(agrees('{"challenge":"abc"}', "challenge=abc"));
  assert.ok(agrees('{"plainToken":"p","encryptedToken":"e"}', '{"encryptedToken":"e","plainToken":"p"}'));
  assert.ok(agrees("1158201444", "1158201444"));
  assert.ok(agrees("", ""));
  assert.ok(!agrees('{"challenge":"abc"}', '{"challenge":"abd"}'));
  assert.ok(!agrees('{"plainToken":"p","encryptedToken":"e"}', '{"plainToken":"p"}'));
  assert.ok(!agrees('{"type":1}', '{"type":4}'));
  assert.ok(!agrees("", '{"type":4}'));
  assert.ok(!agrees("tok", "ok"));
});
