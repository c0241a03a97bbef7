/**
 * The "Schema" section of `inspect`: whether the payload matches its
 * provider's published schema, and the first differences. A warning only:
 * a real sender's payload may differ from the schema a handler was tested
 * with. Paths and values come from the payload: sanitized. Pure.
 * @module
 */
import type { SchemaCheck } from "../providers/schema_check.ts";
import type { Colors } from "./colors.ts";
import { safeLine } from "../text/sanitize.ts";

/** The section's text (empty when there was nothing to check), ending with a newline. */
export function schemaText(check: SchemaCheck | undefined, colors: Colors): string {
  if (check === undefined) return "";
  const head = colors.bold("Schema");
  if (check.matches) {
    return `\n${head}\n  ${colors.green("✓")} matches ${safeLine(check.type)} in ${safeLine(check.source)}\n`;
  }
  const lines = check.differences.map((d) => `    ${safeLine(d.path)} ${safeLine(d.message)}`);
  return `\n${head}\n  ${colors.yellow("!")} differs from ${safeLine(check.type)} in ${
    safeLine(check.source)
  } ` +
    `(a warning only); the first differences:\n` +
    `${lines.join("\n")}\n`;
}
