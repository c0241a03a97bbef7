/**
 * The export formats, by name. Adding one is a file exporting an
 * {@linkcode ExportFormat}, its name in
 * src/names.ts and one line here.
 * @module
 */
import type { ExportFormat } from "./format.ts";
import { CURL } from "./curl.ts";
import { FIXTURE } from "./fixture.ts";
import { HAR } from "./har.ts";
import { JSONL } from "./jsonl.ts";
import { FORMAT_NAMES, type FormatName } from "../names.ts";
import { RAW } from "./raw.ts";

const BY_NAME: Record<FormatName, ExportFormat> = {
  har: HAR,
  curl: CURL,
  jsonl: JSONL,
  raw: RAW,
  fixture: FIXTURE,
};

/** Every format, in help order (src/names.ts's). */
export const FORMATS: readonly ExportFormat[] = FORMAT_NAMES.map((name) => BY_NAME[name]);

/** The format named `name`, if there is one. */
export function formatNamed(name: string): ExportFormat | undefined {
  return FORMATS.find((f) => f.name === name);
}
