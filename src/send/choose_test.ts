import assert from "node:assert/strict";
import { checkWhen } from "../config/forward_when.ts";
import { buildEvent, type CapturedEvent } from "../event/record.ts";
import { chooseTargets, compileWhen } from "./choose.ts";

function ev(type: string, headers: [string, string][] = [], path = "/gh"): CapturedEvent {
  const event = buildEvent({
    id: "evt_20240501_01HWXYZ0000000000000000000",
    endpoint: "gh",
    receivedAt: new Date("2024-05-01T10:00:00Z"),
    method: "POST",
    path,
    query: "",
    headers,
    body: new TextEncoder().encode('{"action":"opened","sender":{"type":"User"}}'),
    remoteAddr: "127.0.0.1",
  });
  event.provider = "github";
  event.type = type;
  return event;
}

const when = (value: unknown) => {
  const issues: string[] = [];
  const resolved = checkWhen(value, "when", issues);
  assert.deepEqual(issues, []);
  return compileWhen(resolved);
};

Deno.test("compileWhen: a list of one-valued fields is any of them, several keys all of them", () => {
  const test = when({ type: ["push", "issues"], path: "/g*" });
  assert.equal(test(ev("issues.opened")), true);
  assert.equal(test(ev("push")), true);
  assert.equal(test(ev("pull_request.opened")), false);
  assert.equal(test(ev("push", [], "/other")), false);
});

Deno.test("compileWhen: where and hasHeader lists are all of them", () => {
  const test = when({ where: ["action=opened", "sender.type=User"], hasHeader: ["X-A", "X-B=2"] });
  assert.equal(test(ev("issues", [["X-A", "1"], ["x-b", "2"]])), true);
  assert.equal(test(ev("issues", [["X-A", "1"]])), false);
  assert.equal(when({ where: ["action=opened", "action=closed"] })(ev("issues")), false);
});

Deno.test("compileWhen: no rule takes every event; chooseTargets keeps config order", () => {
  const targets = [
    { name: "all", test: compileWhen(undefined) },
    { name: "none", test: when({ verdict: "valid" }) },
    { name: "unsigned", test: when({ verdict: ["invalid", "unsigned"] }) },
  ];
  assert.deepEqual(chooseTargets(targets, ev("push")).map((t) => t.name), ["all", "unsigned"]);
});
