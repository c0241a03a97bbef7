import assert from "node:assert/strict";
import { checkForward } from "./forward.ts";

Deno.test("checkForward: a URL string gets every default", () => {
  const issues: string[] = [];
  const f = checkForward("http://localhost:3000/hook", "endpoints[0].forward", issues);
  assert.deepEqual(issues, []);
  assert.equal(f?.mode, "queue");
  assert.equal(f?.concurrency, 8);
  assert.equal(f?.timeoutMs, 30000);
});

Deno.test("checkForward: each problem names its field path", () => {
  const issues: string[] = [];
  checkForward(
    { to: "ftp://x", concurrency: 0, timeout: "30s", retry: { backoff: [] }, insecure: "yes" },
    "endpoints[1].forward",
    issues,
  );
  assert.deepEqual(issues.map((i) => i.split(" ")[0]), [
    "endpoints[1].forward.to",
    "endpoints[1].forward.timeout",
    "endpoints[1].forward.concurrency",
    "endpoints[1].forward.retry.backoff",
    "endpoints[1].forward.insecure",
  ]);
});
