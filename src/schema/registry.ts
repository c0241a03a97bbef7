/**
 * Which providers publish a schema of their webhook payloads, each behind a
 * hook that loads it only when an event of that provider is checked (the
 * schemas are large: `inspect` of another provider's event, and `logs`,
 * never load them). A provider plugs its schema in with one line here and a
 * module that returns a {@linkcode PayloadSchema}.
 * @module
 */
import { lazyImport } from "../cli/lazy.ts";
import type { Schema } from "./validate.ts";

/** A provider's published payload schema. */
export interface PayloadSchema {
  /** Where it comes from, with its exact version: `@octokit/openapi-webhooks@12.1.0`. */
  readonly source: string;
  /**
   * The schema of one event type (as hooktap types it: `issues.closed`) and the document its `$ref`s point
   * into, or undefined when none is published. May load it (GitHub's: one module per event).
   */
  schemaOf(type: string): Promise<{ schema: Schema; root: Record<string, unknown> } | undefined>;
}

/** A provider's schema hook: loads its schema when first needed. */
export type SchemaHook = () => Promise<PayloadSchema>;

/** Each provider's schema hook, by canonical provider name; a provider without one has no published schema. */
export const PAYLOAD_SCHEMAS: Readonly<Record<string, SchemaHook>> = {
  github: async () =>
    (await lazyImport<typeof import("../providers/github/schema.ts")>("src/providers/github/schema.ts"))
      .githubSchema,
};
