import assert from "node:assert/strict";
import { closest, editDistance } from "./suggest.ts";

Deno.test("editDistance() counts a transposition as one edit", () => {
  assert.equal(editDistance("POTS", "POST"), 1);
  assert.equal(editDistance("methd", "method"), 1);
  assert.equal(editDistance("P0ST", "POST"), 1);
  assert.equal(editDistance("abc", "abc"), 0);
});

Deno.test("closest() suggests only likely typos", () => {
  assert.equal(closest("methd", ["name", "path", "method"]), "method");
  assert.equal(closest("P0ST", ["GET", "POST", "PUT"]), "POST");
  assert.equal(closest("prot", ["port", "endpoints"]), "port");
  assert.equal(closest("zzzzzz", ["port", "endpoints"]), undefined);
  assert.equal(closest("PURGE", ["GET", "POST", "PUT"]), undefined);
});
