/**
 * The closed lists of names hooktap's options offer as choices: export
 * formats and signature verdicts. Data only, imported by the CLI's
 * declarations at start-up (so `--help` and completion show them) and by
 * the modules that own each concept (src/export/registry.ts maps every
 * format name to its format; the filter language checks verdicts).
 * @module
 */

/** Every export format's name, in help order. */
export const FORMAT_NAMES = ["har", "curl", "jsonl", "raw", "fixture"] as const;

/** An export format's name. */
export type FormatName = typeof FORMAT_NAMES[number];

/** What each format writes, as `export --help` says it. */
export const FORMAT_SUMMARIES: Readonly<Record<FormatName, string>> = {
  har: "HTTP Archive 1.2",
  curl: "shell commands",
  jsonl: "records as stored",
  raw: "one body's bytes",
  fixture: "records with signatures masked, for tests",
};

/** Every signature verdict (src/event/record.ts's `VerdictStatus`), in help order. */
export const VERDICT_NAMES = ["valid", "invalid", "expired", "unsigned", "no-secret"] as const;
