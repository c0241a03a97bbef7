/**
 * Which providers publish a schema of their webhook payloads, each behind a
 * hook that loads it only when an event of that provider is checked (the
 * schemas are large: `inspect` of another provider's event, and `logs`,
 * never load them). Derived from src/providers/index.ts: a provider plugs its
 * schema in with its folder's `schema.ts` (exporting `schema`).
 * @module
 */
import { PROVIDER_INDEX } from "./index.ts";
import { PROVIDER_METAS } from "./metas.gen.ts";
import type { PayloadSchema } from "./types.ts";

export type { PayloadSchema } from "./types.ts";

/** A provider's schema hook: loads its schema when first needed. */
export type SchemaHook = () => Promise<PayloadSchema>;

/** Each provider's schema hook, by canonical provider name; a provider without one has no published schema. */
export const PAYLOAD_SCHEMAS: Readonly<Record<string, SchemaHook>> = Object.fromEntries(
  Object.entries(PROVIDER_INDEX).flatMap(([folder, parts]) => {
    const load = parts.schema;
    return load === undefined ? [] : [[PROVIDER_METAS[folder]!.name, async () => (await load()).schema]];
  }),
);
