import assert from "node:assert/strict";
import { settle, Synth } from "./github_synth.ts";

const root = {
  components: {
    schemas: {
      user: {
        type: "object",
        properties: { login: { type: "string" }, id: { type: "integer" }, node_id: { type: "string" } },
        required: ["login", "id"],
      },
      event: {
        type: "object",
        properties: {
          action: { type: "string", enum: ["closed"] },
          plan: { type: "string", enum: ["FREE", "FLAT_RATE"] },
          homepage: { type: ["string", "null"], format: "uri" },
          created_at: { type: "string", format: "date-time" },
          owner: { anyOf: [{ type: "null" }, { $ref: "#/components/schemas/user" }] },
          sender: { $ref: "#/components/schemas/user" },
        },
        required: ["action", "plan", "created_at", "owner", "sender"],
      },
    },
  },
};
const event = { $ref: "#/components/schemas/event" };

Deno.test("Synth.conform keeps an example's values and changes only what the schema refuses", () => {
  const synth = new Synth(root);
  const example = {
    action: "closed",
    plan: "flat-rate",
    homepage: "",
    created_at: 1_560_000_000,
    owner: { login: "Codertocat" },
    sender: { login: "Codertocat", id: 21031067, extra: true },
  };
  const done = synth.conform(example, event, "", "$") as Record<string, unknown>;
  assert.equal(synth.valid(done, event), true);
  assert.equal(done.plan, "FLAT_RATE", "an enum's spelling is matched, not replaced");
  assert.equal(done.homepage, null, "an empty uri becomes null where null is allowed");
  assert.match(String(done.created_at), /^\d{4}-\d{2}-\d{2}T/);
  assert.deepEqual(done.sender, example.sender, "a conforming part is kept as it is");
  assert.equal((done.owner as { login: string }).login, "Codertocat", "an object stays an object");
  assert.equal(typeof (done.owner as { id: number }).id, "number", "and gains its required fields");
});

Deno.test("Synth.make builds a conforming payload, the same on every run, reusing learned objects", () => {
  const a = new Synth(root);
  const b = new Synth(root);
  const made = a.make(event, "", "$");
  assert.equal(a.valid(made, event), true);
  assert.deepEqual(made, b.make(event, "", "$"), "deterministic");
  a.learn({ login: "octo-org", id: 6811672 }, { $ref: "#/components/schemas/user" });
  assert.deepEqual((a.make(event, "", "$") as { sender: unknown }).sender, {
    login: "octo-org",
    id: 6811672,
  });
});

Deno.test("settle makes a payload agree with its action", () => {
  const closed = settle("issues", "closed", { issue: { state: "open", closed_at: null, updated_at: "x" } });
  assert.deepEqual(closed.issue, {
    state: "closed",
    closed_at: "2025-06-10T15:04:51Z",
    updated_at: "2025-06-10T15:04:51Z",
  });
  const merged = settle("pull_request", "closed", {
    sender: { login: "octocat" },
    pull_request: { state: "open", merged: false, merged_at: null, merged_by: null, merge_commit_sha: null },
  }, true);
  assert.equal((merged.pull_request as { merged: boolean }).merged, true);
  assert.deepEqual((merged.pull_request as { merged_by: unknown }).merged_by, { login: "octocat" });
  const sync = settle("pull_request", "synchronize", {
    before: "a",
    after: "b",
    pull_request: { head: { sha: "c" } },
  });
  assert.equal((sync.pull_request as { head: { sha: string } }).head.sha, "b");
  const run = settle("workflow_run", "in_progress", {
    workflow_run: { status: "completed", conclusion: "success" },
  });
  assert.deepEqual(run.workflow_run, { status: "in_progress", conclusion: null });
  const sub = settle("sub_issues", "sub_issue_added", { sub_issue_id: 1, sub_issue: { id: 7 } });
  assert.equal(sub.sub_issue_id, 7);
});
