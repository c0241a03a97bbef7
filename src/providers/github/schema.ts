/**
 * GitHub's webhook schemas (from GitHub's webhook OpenAPI description,
 * generated beside the trigger catalog by `deno task trigger:catalog`), one
 * module per event holding only the schemas its webhooks use, loaded for the
 * event checked. Loaded only through {@linkcode PAYLOAD_SCHEMAS}.
 * @module
 */
import { SCHEMA_LOADERS, SCHEMA_SOURCE } from "./schema/index.gen.ts";
import type { PayloadSchema } from "../types.ts";

/** GitHub's payload schema: `push`, `issues.closed`; `repository_dispatch.<any action>`. */
export const githubSchema: PayloadSchema = {
  source: SCHEMA_SOURCE,
  async schemaOf(type) {
    const dot = type.indexOf(".");
    const event = dot < 0 ? type : type.slice(0, dot);
    const load = Object.hasOwn(SCHEMA_LOADERS, event) ? SCHEMA_LOADERS[event] : undefined;
    if (load === undefined) return undefined;
    const { WEBHOOKS, COMPONENTS } = await load();
    const name = Object.hasOwn(WEBHOOKS, type) ? WEBHOOKS[type] : WEBHOOKS[`${event}.*`];
    if (name === undefined) return undefined;
    return {
      schema: { $ref: `#/components/schemas/${name}` },
      root: { components: { schemas: COMPONENTS } },
    };
  },
};

/** This folder's schema, for the index (src/providers/index.ts). */
export const schema: PayloadSchema = githubSchema;
