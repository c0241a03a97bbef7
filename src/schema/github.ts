/**
 * GitHub's webhook schemas (from GitHub's webhook OpenAPI description,
 * generated into the trigger catalog by `deno task trigger:catalog`), one per
 * event and action. Loaded only through {@linkcode PAYLOAD_SCHEMAS}.
 * @module
 */
import { COMPONENTS, SCHEMA_SOURCE, WEBHOOKS } from "../trigger/catalog/github/schema.gen.ts";
import type { PayloadSchema } from "./registry.ts";

/** GitHub's payload schema: `push`, `issues.closed`; `repository_dispatch.<any action>`. */
export const githubSchema: PayloadSchema = {
  source: SCHEMA_SOURCE,
  root: { components: { schemas: COMPONENTS } },
  schemaOf(type) {
    const dot = type.indexOf(".");
    const name = WEBHOOKS[type] ?? (dot < 0 ? undefined : WEBHOOKS[`${type.slice(0, dot)}.*`]);
    return name === undefined ? undefined : { $ref: `#/components/schemas/${name}` };
  },
};
