/**
 * Every GitHub entry of the trigger catalog, sent over loopback by `trigger`
 * and run through the oracles: GitHub's own webhook schema for its
 * event.action (Ajv, a real JSON Schema validator, over
 * `@octokit/openapi-webhooks`), and `@octokit/webhooks`' `verifyAndReceive`
 * with the signature `trigger` made (it must accept and parse it as that
 * event). Failures are reported by entry name. hooktap's own schema checker
 * (the one `inspect` uses) must agree with Ajv on every payload.
 */
import assert from "node:assert/strict";
import { Webhooks } from "@octokit/webhooks";
import spec from "@octokit/openapi-webhooks/generated/api.github.com.json" with { type: "json" };
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { loadCatalog } from "../../src/trigger/registry.ts";
import { trigger } from "../../src/trigger/run.ts";
import { GITHUB_ENTRIES, GITHUB_EVENTS } from "../../src/providers/github/samples/index.gen.ts";
import { differences } from "../../src/schema/validate.ts";
import { startRawServer } from "./_raw.ts";

const SECRET = "hooktap-github-table";
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Ajv over GitHub's description: one compiled validator per schema name. */
function githubSchemas(): (name: string) => ValidateFunction {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: false }));
  ajv.addSchema({ $id: "https://hooktap.test/github.json", components: spec.components });
  const cache = new Map<string, ValidateFunction>();
  return (name) => {
    let v = cache.get(name);
    if (v === undefined) {
      v = ajv.compile({ $ref: `https://hooktap.test/github.json#/components/schemas/${name}` });
      cache.set(name, v);
    }
    return v;
  };
}

/** The spec's event.action webhooks, as `trigger` names them. */
function specNames(): string[] {
  return Object.values(spec.webhooks).map((w) => {
    const op = (w as { post: { operationId: string } }).post.operationId;
    const slash = op.indexOf("/");
    const event = (slash < 0 ? op : op.slice(0, slash)).replace(/-/g, "_");
    return slash < 0 ? event : `${event}.${op.slice(slash + 1)}`;
  });
}

Deno.test("every GitHub entry conforms to GitHub's schema (>= 98%) and is accepted and parsed by @octokit/webhooks", async () => {
  const catalog = await loadCatalog("github");
  const schemaOf = githubSchemas();
  const webhooks = new Webhooks({ secret: SECRET });
  const parsed: { name: string; action: string | undefined }[] = [];
  webhooks.onAny((e) => {
    parsed.push({ name: e.name, action: (e.payload as { action?: string }).action });
  });
  await using server = startRawServer();
  const schemaFailures: string[] = [];
  const octokitFailures: string[] = [];
  const disagreements: string[] = [];
  for (const name of catalog.events) {
    const outcome = await trigger({ provider: "github", event: name, to: server.url, secret: SECRET });
    assert.equal(outcome.deliveries[0]?.ok, true, name);
    const r = server.requests.at(-1)!;
    const header = (n: string) => r.headers.find(([k]) => k.toLowerCase() === n)?.[1] ?? "";
    const text = new TextDecoder().decode(r.body);
    const body = JSON.parse(text);
    const event = header("x-github-event");
    // Oracle 1: GitHub's schema for this event.action.
    const schema = GITHUB_ENTRIES[name]?.schema ?? null;
    if (schema === null) schemaFailures.push(`${name}: GitHub publishes no schema for it`);
    else {
      const validate = schemaOf(schema);
      const ok = validate(body) as boolean;
      if (!ok) {
        const first = validate.errors!.slice(0, 2).map((e) => `${e.instancePath} ${e.message}`).join("; ");
        schemaFailures.push(`${name}: ${first}`);
      }
      const mine = differences(body, { $ref: `#/components/schemas/${schema}` }, spec, 1).length === 0;
      if (mine !== ok) disagreements.push(`${name}: ajv says ${ok}, hooktap's checker ${mine}`);
    }
    // Oracle 2: Octokit verifies the signature trigger made, then parses the event.
    const before = parsed.length;
    try {
      await webhooks.verifyAndReceive({
        id: header("x-github-delivery"),
        name: event as never,
        payload: text,
        signature: header("x-hub-signature-256"),
      });
      const got = parsed.at(-1);
      if (parsed.length !== before + 1 || got?.name !== event || got.action !== body.action) {
        octokitFailures.push(`${name}: parsed as ${JSON.stringify(got)}`);
      }
    } catch (e) {
      octokitFailures.push(`${name}: ${(e as Error).message}`);
    }
    // The headers agree with the body.
    if (typeof body.hook_id === "number" && String(body.hook_id) !== header("x-github-hook-id")) {
      octokitFailures.push(
        `${name}: X-GitHub-Hook-ID ${header("x-github-hook-id")} but hook_id ${body.hook_id}`,
      );
    }
    if (event !== name.split(".")[0]) octokitFailures.push(`${name}: X-GitHub-Event ${event}`);
  }
  assert.deepEqual(octokitFailures, []);
  assert.deepEqual(disagreements, []);
  const valid = catalog.events.length - schemaFailures.length;
  const share = valid / catalog.events.length;
  assert.ok(
    share >= 0.98,
    `${valid} of ${catalog.events.length} conform to GitHub's schema; not:\n${schemaFailures.join("\n")}`,
  );
  // The two that cannot: GitHub's repository-advisory schema asks author, publisher and private_fork to be
  // an object (allOf a $ref) and null (type: ["null"]) at once, which no value is.
  assert.deepEqual(schemaFailures.map((f) => f.split(":")[0]).sort(), [
    "repository_advisory.published",
    "repository_advisory.reported",
  ]);
});

Deno.test("the GitHub catalog covers >= 255 of the webhook description's event.action pairs, every event of it", () => {
  const ours = new Set(
    Object.entries(GITHUB_EVENTS).flatMap(([e, actions]) => actions.map((a) => a === "" ? e : `${e}.${a}`)),
  );
  const names = specNames();
  assert.ok(names.length >= 261, `the description lists ${names.length}`);
  // Action names in operationIds use dashes where the payload's action has underscores.
  const missing = names.filter((n) => !ours.has(n) && !ours.has(n.replace(/-/g, "_")));
  assert.ok(names.length - missing.length >= 255, `missing: ${missing.join(", ")}`);
  for (
    const event of [
      "projects_v2",
      "repository_ruleset",
      "secret_scanning_alert",
      "sub_issues",
      "custom_property",
    ]
  ) {
    assert.ok(event in GITHUB_EVENTS, event);
  }
});

Deno.test("GitHub entries agree with their action: closed is closed, merged is merged, synchronize's after is the head", async () => {
  await using server = startRawServer();
  const body = async (event: string) => {
    await trigger({ provider: "github", event, to: server.url, secret: SECRET });
    return JSON.parse(new TextDecoder().decode(server.requests.at(-1)!.body));
  };
  const closed = await body("issues.closed");
  assert.equal(closed.issue.state, "closed");
  assert.equal(typeof closed.issue.closed_at, "string");
  const reopened = await body("issues.reopened");
  assert.equal(reopened.issue.state, "open");
  assert.equal(reopened.issue.closed_at, null);
  const merged = await body("pull_request.merged");
  assert.equal(merged.action, "closed", "GitHub has no `merged` action: the alias sends closed");
  assert.equal(merged.pull_request.merged, true);
  assert.equal(merged.pull_request.state, "closed");
  assert.equal(typeof merged.pull_request.merged_at, "string");
  const prClosed = await body("pull_request.closed");
  assert.equal(prClosed.pull_request.merged, false);
  assert.equal(prClosed.pull_request.merged_at, null);
  const sync = await body("pull_request.synchronize");
  assert.equal(sync.after, sync.pull_request.head.sha);
  assert.notEqual(sync.before, sync.after);
  const ping = await body("ping");
  const hookId = server.requests.at(-1)!.headers.find(([k]) => k === "X-GitHub-Hook-ID")![1];
  assert.equal(String(ping.hook_id), hookId);
  assert.equal(String(ping.hook.id), hookId);
  const header = (name: string) => server.requests.at(-1)!.headers.find(([k]) => k === name)?.[1];
  const app = await body("installation.created");
  assert.equal(header("X-GitHub-Hook-Installation-Target-Type"), "integration", "an App's hook");
  assert.equal(header("X-GitHub-Hook-Installation-Target-ID"), String(app.installation.app_id));
  const project = await body("projects_v2.created");
  assert.equal(header("X-GitHub-Hook-Installation-Target-Type"), "organization", "an organization's hook");
  assert.equal(header("X-GitHub-Hook-Installation-Target-ID"), String(project.organization.id));
});

Deno.test("hooktap's schema checker and Ajv agree on broken payloads too (a required field gone, a type changed)", async () => {
  const schemaOf = githubSchemas();
  const { GITHUB_LOADERS } = await import("../../src/providers/github/samples/index.gen.ts");
  const disagreements: string[] = [];
  let broken = 0;
  for (const [name, entry] of Object.entries(GITHUB_ENTRIES)) {
    if (entry.schema === null) continue;
    const [event, action = ""] = name.includes(".")
      ? [name.slice(0, name.indexOf(".")), name.slice(name.indexOf(".") + 1)]
      : [name];
    const body = structuredClone((await GITHUB_LOADERS[event]!()).EXAMPLES[action]!.body) as Record<
      string,
      unknown
    >;
    const key = Object.keys(body).find((k) =>
      k !== "action" && typeof body[k] === "object" && body[k] !== null
    );
    if (key === undefined) continue;
    for (
      const mutate of [
        (b: Record<string, unknown>) => delete b[key],
        (b: Record<string, unknown>) => (b[key] = 42),
      ]
    ) {
      const copy = structuredClone(body);
      mutate(copy);
      const ajv = schemaOf(entry.schema)(copy) as boolean;
      const mine = differences(copy, { $ref: `#/components/schemas/${entry.schema}` }, spec).length === 0;
      if (!ajv) broken++;
      if (ajv !== mine) {
        disagreements.push(`${name} without/with a wrong ${key}: ajv ${ajv}, hooktap ${mine}`);
      }
    }
  }
  assert.deepEqual(disagreements, []);
  assert.ok(broken > 300, `${broken} broken payloads checked`);
});
