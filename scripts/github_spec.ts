/**
 * GitHub's webhook sources for the catalog generator: the webhook OpenAPI
 * description (`@octokit/openapi-webhooks`, GitHub's own, one schema per
 * event and action) and the community examples (`@octokit/webhooks-examples`).
 * Both are pinned to exact versions in deno.json; this module reads their
 * versions from the installed packages so the generated files can say where
 * they came from.
 * @module
 */
import { createRequire } from "node:module";
import examplesPackage from "@octokit/webhooks-examples/package.json" with { type: "json" };
import spec from "@octokit/openapi-webhooks/generated/api.github.com.json" with { type: "json" };
import specPackage from "@octokit/openapi-webhooks/package.json" with { type: "json" };

/** The pinned package names. */
export const SPEC_PACKAGE = "@octokit/openapi-webhooks";
/** The pinned package of examples. */
export const EXAMPLES_PACKAGE = "@octokit/webhooks-examples";

/** One webhook of the OpenAPI description: an event and one of its actions. */
export interface SpecWebhook {
  /** `X-GitHub-Event`: `pull_request`. */
  event: string;
  /** The body's `action` ("" when the event has none): `review_requested`. */
  action: string;
  /** The name of its schema under `components.schemas`. */
  schema: string;
  /** Whether the schema takes any string as `action` (repository_dispatch). */
  anyAction: boolean;
}

/** An example of `@octokit/webhooks-examples`. */
export interface ExampleDefinition {
  name: string;
  actions: string[];
  examples: Record<string, unknown>[];
}

const require = createRequire(import.meta.url);

/** `name@version` of the description, as deno.json pins it. */
export const SPEC_ID = `${SPEC_PACKAGE}@${specPackage.version}`;
/** `name@version` of the examples, as deno.json pins it. */
export const EXAMPLES_ID = `${EXAMPLES_PACKAGE}@${examplesPackage.version}`;

/** GitHub's webhook OpenAPI description for github.com. */
export function loadSpec(): Record<string, unknown> {
  return spec as unknown as Record<string, unknown>;
}

/** The examples, by event name. */
export function loadExamples(): ExampleDefinition[] {
  return require(EXAMPLES_PACKAGE) as ExampleDefinition[];
}

function _actionOf(
  schema: Record<string, unknown>,
  schemas: Record<string, Record<string, unknown>>,
): unknown {
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  const action = props?.action;
  if (action !== undefined) {
    if (Array.isArray(action.enum)) return action.enum[0];
    if (typeof action.const === "string") return action.const;
    return null;
  }
  for (const key of ["oneOf", "anyOf", "allOf"]) {
    for (const part of (schema[key] ?? []) as Record<string, unknown>[]) {
      const sub = typeof part.$ref === "string" ? schemas[part.$ref.split("/").pop()!]! : part;
      const found = _actionOf(sub, schemas);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Every webhook (event and action) the description declares, in its order. */
export function specWebhooks(spec: Record<string, unknown>): SpecWebhook[] {
  const schemas = (spec.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
  const out: SpecWebhook[] = [];
  for (const hook of Object.values(spec.webhooks as Record<string, { post: Record<string, unknown> }>)) {
    const op = hook.post;
    const id = String(op.operationId);
    const ref =
      ((op.requestBody as Record<string, unknown>).content as Record<string, { schema: { $ref: string } }>)[
        "application/json"
      ]!.schema.$ref;
    const schema = ref.split("/").pop()!;
    const slash = id.indexOf("/");
    const event = (slash < 0 ? id : id.slice(0, slash)).replace(/-/g, "_");
    const found = _actionOf(schemas[schema]!, schemas);
    const anyAction = found === null;
    const action = typeof found === "string" ? found : slash < 0 ? "" : id.slice(slash + 1);
    out.push({ event, action, schema, anyAction });
  }
  return out;
}
