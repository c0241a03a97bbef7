import assert from "node:assert/strict";
import { loopProblem } from "./loop_check.ts";

Deno.test("loopProblem: the receiver's own port on a local name is refused", () => {
  for (const to of ["http://localhost:8787/x", "http://127.0.0.1:8787/", "http://[::1]:8787/a"]) {
    assert.match(loopProblem(to, { hostname: "127.0.0.1", port: 8787 }) ?? "", /own receiver/, to);
  }
});

Deno.test("loopProblem: another port or a remote host is fine", () => {
  assert.equal(loopProblem("http://localhost:3000/x", { hostname: "127.0.0.1", port: 8787 }), undefined);
  assert.equal(loopProblem("http://example.com:8787/x", { hostname: "127.0.0.1", port: 8787 }), undefined);
});
