/**
 * The export formats, by name. Adding one is a file exporting an
 * {@linkcode ExportFormat} and one line here.
 * @module
 */
import type { ExportFormat } from "./format.ts";
import { CURL } from "./curl.ts";
import { FIXTURE } from "./fixture.ts";
import { HAR } from "./har.ts";
import { JSONL } from "./jsonl.ts";
import { RAW } from "./raw.ts";

/** Every format, in help order. */
export const FORMATS: readonly ExportFormat[] = [HAR, CURL, JSONL, RAW, FIXTURE];

/** The format named `name`, if there is one. */
export function formatNamed(name: string): ExportFormat | undefined {
  return FORMATS.find((f) => f.name === name);
}
