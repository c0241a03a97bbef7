import assert from "node:assert/strict";
import { github } from "./verify.ts";
import { createView } from "../view.ts";

function view(body: string, contentType = "application/json") {
  return createView({
    method: "POST",
    path: "/gh",
    query: "",
    headers: [["X-GitHub-Event", "issues"], ["Content-Type", contentType]],
    body: new TextEncoder().encode(body),
    receivedAt: new Date(),
  });
}

Deno.test("GitHub's event type: the body's top-level action, found by the shortcut or the parse alike", () => {
  assert.equal(github.eventType!(view('{"action":"opened","issue":{}}')), "issues.opened");
  assert.equal(github.eventType!(view('{"ref":"refs/heads/main","commits":[]}')), "issues");
  // A key spelled with an escape is still a key: the shortcut must not skip it.
  assert.equal(github.eventType!(view('{"\\u0061ction":"closed"}')), "issues.closed");
  // Nested `action` is not the event's action.
  assert.equal(github.eventType!(view('{"issue":{"action":"x"}}')), "issues");
  // Form-encoded: the JSON in `payload`, percent-encoded.
  const form = "payload=" + encodeURIComponent('{"\\u0061ction":"assigned"}');
  assert.equal(github.eventType!(view(form, "application/x-www-form-urlencoded")), "issues.assigned");
});
