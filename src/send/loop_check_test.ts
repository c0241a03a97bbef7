import assert from "node:assert/strict";
import { localPort, loopProblem } from "./loop_check.ts";

Deno.test("loopProblem: the receiver's own port on a local name is refused", () => {
  for (const to of ["http://localhost:8787/x", "http://127.0.0.1:8787/", "http://[::1]:8787/a"]) {
    assert.match(loopProblem(to, { hostname: "127.0.0.1", port: 8787 }) ?? "", /own receiver/, to);
  }
});

Deno.test("loopProblem: another port or a remote host is fine", () => {
  assert.equal(loopProblem("http://localhost:3000/x", { hostname: "127.0.0.1", port: 8787 }), undefined);
  assert.equal(loopProblem("http://example.com:8787/x", { hostname: "127.0.0.1", port: 8787 }), undefined);
});

Deno.test("loopProblem: the inspector's port names the inspector and its option; localPort reads local targets only", () => {
  const own = { hostname: "127.0.0.1", port: 8788, what: "inspector" as const };
  assert.match(
    loopProblem("http://localhost:8788/hook", own) ?? "",
    /hooktap's inspector both use port 8788/,
  );
  assert.match(loopProblem("http://127.0.0.1:8788/hook", own) ?? "", /--ui-port/);
  assert.equal(loopProblem("http://localhost:3000/hook", own), undefined);
  assert.equal(localPort("http://localhost:3000/x"), 3000);
  assert.equal(localPort("http://[::1]/x"), 80);
  assert.equal(localPort("https://127.0.0.1/x"), 443);
  assert.equal(localPort("http://example.com:3000/x"), undefined);
});
