/** Presence: entries only for registered clients, gone with them. */
import assert from "node:assert/strict";
import { Presence } from "./presence.ts";

Deno.test("presence: a bye for a name never seen creates no entry; a removed client's entry goes", () => {
  const p = new Presence();
  for (let i = 0; i < 1000; i++) p.bye("ch", `stranger-${i}`);
  assert.equal(p.contacts("ch"), 0);
  p.seen("ch", "alice");
  p.visit("ch", "bob").end();
  assert.equal(p.contacts("ch"), 2);
  p.bye("ch", "alice");
  assert.equal(p.connected("ch", "alice"), false);
  assert.equal(p.connected("ch", "bob"), true);
  p.forget("ch", "alice");
  p.forget("ch", "bob");
  assert.equal(p.contacts("ch"), 0);
});
