import assert from "node:assert/strict";
import { providerNamed } from "../providers/registry.ts";
import { createView } from "../providers/view.ts";
import { buildEvent, parseEventLine } from "./record.ts";

const payload = JSON.stringify({ action: "assigned", issue: { number: 1 } });
const form = `payload=${encodeURIComponent(payload)}`;
const headers: [string, string][] = [
  ["Content-Type", "application/x-www-form-urlencoded"],
  ["X-GitHub-Event", "issues"],
];

Deno.test("a GitHub delivery sent form-encoded (payload=) is typed with its action", () => {
  const view = createView({
    method: "POST",
    path: "/gh",
    query: "",
    headers,
    body: new TextEncoder().encode(form),
    receivedAt: new Date(),
  });
  assert.equal(providerNamed("github")!.eventType?.(view), "issues.assigned");
});

Deno.test("an event stored with the short type of a form body is typed right when read, the line unchanged", () => {
  const event = buildEvent({
    id: "evt_20260101_01J0000000000000000000FORM",
    endpoint: "gh",
    receivedAt: new Date(),
    method: "POST",
    path: "/gh",
    query: "",
    headers,
    body: new TextEncoder().encode(form),
    remoteAddr: "127.0.0.1",
  });
  const line = JSON.stringify({ ...event, provider: "github", type: "issues" });
  assert.equal(parseEventLine(line)?.type, "issues.assigned");
  const json = JSON.stringify({
    ...event,
    provider: "github",
    type: "push",
    headers: [["X-GitHub-Event", "push"]],
  });
  assert.equal(parseEventLine(json)?.type, "push");
});
