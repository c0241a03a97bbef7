/**
 * GitHub: every event and action of GitHub's webhook OpenAPI description,
 * each payload a recorded example or built from GitHub's schema (generated
 * into ./github/ by `deno task trigger:catalog`, one module per event, loaded
 * only for the event sent), with the headers GitHub's Hookshot sends. A pull
 * request's flow (opened → synchronize → closed and merged) shares one pull
 * request; a synchronize's `after` is the head it pushed; the hook id header is
 * the body's `hook_id`.
 * @module
 */
import { digits, hex, stableDigits, uuid } from "../_ids.ts";
import type { BuildContext, Draft, EntryOrigin, TriggerCatalog } from "../catalog_types.ts";
import { GITHUB_ENTRIES, GITHUB_EVENTS, GITHUB_LOADERS, GITHUB_SOURCE } from "./samples/index.gen.ts";

const EVENTS: string[] = Object.entries(GITHUB_EVENTS).flatMap(([event, actions]) =>
  actions.map((a) => (a === "" ? event : `${event}.${a}`))
);

function _split(name: string): [string, string] {
  const dot = name.indexOf(".");
  return dot < 0 ? [name, ""] : [name.slice(0, dot), name.slice(dot + 1)];
}

/** The head a synchronize pushed, by run (a run's steps share its `id` function). */
const PUSHED = new WeakMap<BuildContext["id"], string>();

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
    for (const key of ["closed_at", "merged_at"]) if (typeof pr[key] === "string") pr[key] = now;
    const head = pr.head as Record<string, unknown> | undefined;
    if (head !== undefined && typeof head === "object") {
      const first = ctx.id("pr.head", () => hex(40));
      if (body.action === "synchronize") {
        // The push moved the head: `before` is the old head, `after` the new one, which the pull request shows.
        const pushed = ctx.id("pr.head.pushed", () => hex(40));
        PUSHED.set(ctx.id, pushed);
        body.before = first;
        head.sha = body.after = pushed;
      } else {
        // After a synchronize of the same run (a sequence), the pull request's head is the pushed one.
        head.sha = PUSHED.get(ctx.id) ?? first;
      }
    }
  }
}

/**
 * The webhook's id: GitHub's `X-GitHub-Hook-ID` names the webhook, not the delivery, so it is the same on
 * every trigger to the same URL (and a ping's `hook.config.url` is that URL).
 */
function _hook(body: Record<string, unknown>, ctx: BuildContext): string {
  const url = ctx.webhookUrl;
  const hook = ctx.id(
    "github.hook",
    () => String(url === undefined ? digits(9) : stableDigits(`github.hook ${url}`, 9)),
  );
  if (typeof body.hook_id === "number") body.hook_id = Number(hook);
  const obj = body.hook as Record<string, unknown> | null | undefined;
  if (obj !== null && typeof obj === "object" && typeof obj.id === "number") {
    obj.id = Number(hook);
    const config = obj.config as Record<string, unknown> | null | undefined;
    if (
      url !== undefined && config !== null && typeof config === "object" && typeof config.url === "string"
    ) {
      config.url = url;
    }
  }
  return hook;
}

/** Events only a GitHub App's webhook receives: its target is the App (`integration`). */
const APP_EVENTS = new Set([
  "installation",
  "installation_repositories",
  "installation_target",
  "github_app_authorization",
]);

function _target(event: string, body: Record<string, unknown>): [string, string][] {
  const app = (body.installation as { app_id?: unknown } | null | undefined)?.app_id;
  if (APP_EVENTS.has(event) && typeof app === "number") {
    return [["X-GitHub-Hook-Installation-Target-ID", String(app)], [
      "X-GitHub-Hook-Installation-Target-Type",
      "integration",
    ]];
  }
  for (const [key, type] of [["repository", "repository"], ["organization", "organization"]] as const) {
    const id = (body[key] as { id?: unknown } | null | undefined)?.id;
    if (typeof id === "number") {
      return [["X-GitHub-Hook-Installation-Target-ID", String(id)], [
        "X-GitHub-Hook-Installation-Target-Type",
        type,
      ]];
    }
  }
  return [];
}

function _issue(body: Record<string, unknown>, ctx: BuildContext): void {
  const issue = body.issue as Record<string, unknown> | undefined;
  if (issue === undefined || typeof issue !== "object") return;
  issue.number = Number(ctx.id("issue.number", () => String(digits(3))));
  issue.id = Number(ctx.id("issue.id", () => String(digits(10))));
  issue.updated_at = ctx.now.toISOString().replace(/\.\d{3}Z$/, "Z");
  if (typeof issue.closed_at === "string") issue.closed_at = issue.updated_at;
}

async function build(name: string, ctx: BuildContext): Promise<Draft> {
  const [event, action] = _split(name);
  const load = GITHUB_LOADERS[event];
  const example = load === undefined ? undefined : (await load()).EXAMPLES[action];
  if (example === undefined) throw new Error(`no GitHub example for ${name}`);
  // A copy to change: the example is JSON, and a JSON round trip copies it in a fraction of
  // structuredClone's first call (~0.3 ms of a one-shot `trigger`).
  const body = JSON.parse(JSON.stringify(example.body)) as Record<string, unknown>;
  if (event === "pull_request" || event.startsWith("pull_request_review")) _pullRequest(body, ctx);
  if (event === "issues" || event === "issue_comment") _issue(body, ctx);
  const hook = _hook(body, ctx);
  const target = _target(event, body);
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

function entryOrigin(event: string): EntryOrigin | undefined {
  const entry = GITHUB_ENTRIES[event];
  if (entry === undefined) return undefined;
  return { from: entry.from, ...(entry.alias !== undefined ? { alias: entry.alias } : {}) };
}

/** GitHub's catalog. */
export const catalog: TriggerCatalog = {
  provider: "github",
  source: GITHUB_SOURCE,
  entryOrigin,
  events: EVENTS,
  sequences: {
    "pull_request": {
      description: "a pull request opened, pushed to (synchronize), then merged (closed, merged: true)",
      steps: [
        { event: "pull_request.opened" },
        { event: "pull_request.synchronize" },
        { event: "pull_request.merged" },
      ],
    },
    "issue": {
      description: "an issue opened, commented on, then closed",
      steps: [
        { event: "issues.opened" },
        { event: "issue_comment.created" },
        { event: "issues.closed" },
      ],
    },
  },
  retries: [],
  retriesNote: "GitHub does not retry failed deliveries by itself (redeliver from the hook's settings); " +
    "hooktap redelivers 1 s apart",
  build,
};
