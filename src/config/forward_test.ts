import assert from "node:assert/strict";
import { checkForward, checkForwards } from "./forward.ts";

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

Deno.test("checkForwards: a list of targets, names derived from the URL unless given", () => {
  const issues: string[] = [];
  const list = checkForwards(
    [
      { to: "http://localhost:3000/issues", when: { type: "issues" } },
      { name: "pushes", to: "http://localhost:4000/push", when: { type: ["push"], hasHeader: "X-A" } },
    ],
    "endpoints[0].forward",
    issues,
  );
  assert.deepEqual(issues, []);
  assert.deepEqual(list?.map((t) => t.name), ["localhost:3000/issues", "pushes"]);
  assert.deepEqual(list?.[1]?.when, [[{ type: "push" }], [{ header: ["X-A"] }]]);
});

Deno.test("checkForwards: bad rules are reported with their field path, did-you-mean and the fix", () => {
  const issues: string[] = [];
  const list = checkForwards(
    [
      { to: "http://localhost:3000/a", mode: "relay" },
      { to: "http://localhost:3000/a", mode: "relay" },
      {
        to: "http://localhost:3000/b",
        when: { typ: "push", provider: "stripe", verdict: "good", where: "=x" },
      },
    ],
    "endpoints[2].forward",
    issues,
    "github",
  );
  assert.equal(list, undefined);
  const text = issues.join("\n");
  assert.match(text, /endpoints\[2\]\.forward\[2\]\.when\.typ is not a when field: did you mean "type"\?/);
  assert.match(
    text,
    /endpoints\[2\]\.forward\[1\]\.name "localhost:3000\/a" is already used by endpoints\[2\]\.forward\[0\]/,
  );
  assert.match(
    text,
    /endpoints\[2\]\.forward\[1\]\.mode "relay": endpoints\[2\]\.forward\[0\] is already the relay target/,
  );
  assert.match(
    text,
    /endpoints\[2\]\.forward\[2\]\.when\.provider "stripe" can never match: this endpoint's provider is "github"/,
  );
  assert.match(text, /endpoints\[2\]\.forward\[2\]\.when\.verdict must be one of valid, invalid/);
  assert.match(text, /endpoints\[2\]\.forward\[2\]\.when\.where: where must look like field=value/);
});

Deno.test("checkForwards: an empty list and an empty rule list are refused", () => {
  const issues: string[] = [];
  checkForwards([], "endpoints[0].forward", issues);
  checkForwards([{ to: "http://localhost:3000/", when: { type: [] } }], "endpoints[1].forward", issues);
  assert.match(issues[0]!, /^endpoints\[0\]\.forward must name at least one target/);
  assert.match(issues[1]!, /^endpoints\[1\]\.forward\[0\]\.when\.type must not be an empty list/);
});

Deno.test("checkForward: a relay target refuses retry, order and concurrency, which only a queue target uses", () => {
  const issues: string[] = [];
  const target = checkForward(
    {
      to: "http://localhost:3000/a",
      mode: "relay",
      retry: { attempts: 4 },
      order: "parallel",
      concurrency: 2,
    },
    "endpoints[0].forward",
    issues,
  );
  assert.equal(target, undefined);
  assert.equal(issues.length, 3);
  for (const field of ["retry", "order", "concurrency"]) {
    assert.ok(
      issues.some((i) =>
        i.startsWith(`endpoints[0].forward.${field} has no effect with mode "relay"`) &&
        i.endsWith(`remove ${field}, or use mode "queue"`)
      ),
      issues.join("\n"),
    );
  }
  const timeoutOnly: string[] = [];
  const relay = checkForward(
    { to: "http://localhost:3000/a", mode: "relay", timeout: 5000 },
    "endpoints[0].forward",
    timeoutOnly,
  );
  assert.deepEqual(timeoutOnly, []);
  assert.equal(relay?.timeoutMs, 5000);
  const queue: string[] = [];
  assert.ok(checkForward({ to: "http://localhost:3000/a", retry: false, order: "parallel" }, "f", queue));
  assert.deepEqual(queue, []);
});
