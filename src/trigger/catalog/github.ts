/**
 * GitHub: every event and action of `@octokit/webhooks-examples` (generated
 * into ./github/, one module per event, loaded only for the event sent),
 * with the headers GitHub's Hookshot sends. A pull request's flow
 * (opened → synchronize → closed and merged) shares one pull request.
 * @module
 */
import { digits, hex, uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../types.ts";
import { GITHUB_EVENTS, GITHUB_LOADERS } from "./github/index.gen.ts";

const EVENTS: string[] = Object.entries(GITHUB_EVENTS).flatMap(([event, actions]) =>
  actions.map((a) => (a === "" ? event : `${event}.${a}`))
);

function _split(name: string): [string, string] {
  const dot = name.indexOf(".");
  return dot < 0 ? [name, ""] : [name.slice(0, dot), name.slice(dot + 1)];
}

function _pullRequest(body: Record<string, unknown>, ctx: BuildContext): void {
  const number = Number(ctx.id("pr.number", () => String(digits(3))));
  const id = Number(ctx.id("pr.id", () => String(digits(10))));
  const now = ctx.now.toISOString().replace(/\.\d{3}Z$/, "Z");
  body.number = number;
  const pr = body.pull_request as Record<string, unknown> | undefined;
  if (pr !== undefined && typeof pr === "object") {
    pr.number = number;
    pr.id = id;
    pr.updated_at = now;
    const head = pr.head as Record<string, unknown> | undefined;
    if (head !== undefined) head.sha = ctx.id("pr.head", () => hex(40));
  }
}

function _issue(body: Record<string, unknown>, ctx: BuildContext): void {
  const issue = body.issue as Record<string, unknown> | undefined;
  if (issue === undefined || typeof issue !== "object") return;
  issue.number = Number(ctx.id("issue.number", () => String(digits(3))));
  issue.id = Number(ctx.id("issue.id", () => String(digits(10))));
  issue.updated_at = ctx.now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

async function build(name: string, ctx: BuildContext): Promise<Draft> {
  const [event, action] = _split(name);
  const load = GITHUB_LOADERS[event];
  const example = load === undefined ? undefined : (await load()).EXAMPLES[action];
  if (example === undefined) throw new Error(`no GitHub example for ${name}`);
  const body = structuredClone(example.body) as Record<string, unknown>;
  if (event === "pull_request" || event.startsWith("pull_request_review")) _pullRequest(body, ctx);
  if (event === "issues" || event === "issue_comment") _issue(body, ctx);
  const hook = ctx.id("github.hook", () => String(digits(9)));
  const repo = body.repository as { id?: number } | undefined;
  const target = repo?.id !== undefined
    ? [["X-GitHub-Hook-Installation-Target-ID", String(repo.id)], [
      "X-GitHub-Hook-Installation-Target-Type",
      "repository",
    ]] as [string, string][]
    : [];
  return {
    headers: [
      ["Accept", "*/*"],
      ["Content-Type", "application/json"],
      ["User-Agent", `GitHub-Hookshot/${ctx.id("github.ua", () => hex(7))}`],
      ["X-GitHub-Delivery", uuid()],
      ["X-GitHub-Event", event],
      ["X-GitHub-Hook-ID", hook],
      ...target,
      ["X-Hub-Signature", ""],
      ["X-Hub-Signature-256", ""],
    ],
    body: { kind: "json", value: body },
    deliveryHeader: "X-GitHub-Delivery",
  };
}

/** GitHub's catalog. */
export const catalog: TriggerCatalog = {
  provider: "github",
  events: EVENTS,
  sequences: {
    "pull_request": {
      description: "a pull request opened, pushed to (synchronize), then merged (closed, merged: true)",
      steps: [
        { event: "pull_request.opened" },
        { event: "pull_request.synchronize" },
        {
          event: "pull_request.closed",
          set: { "pull_request.merged": true, "pull_request.state": "closed" },
        },
      ],
    },
    "issue": {
      description: "an issue opened, commented on, then closed",
      steps: [
        { event: "issues.opened" },
        { event: "issue_comment.created" },
        { event: "issues.closed", set: { "issue.state": "closed" } },
      ],
    },
  },
  retries: [],
  retriesNote: "GitHub does not retry failed deliveries by itself (redeliver from the hook's settings); " +
    "hooktap redelivers 1 s apart",
  build,
};
