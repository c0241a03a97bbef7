/**
 * The docs' provider tables against the providers' facts: docs/providers-and-signatures.md's table
 * (one row per sender, its canonical name the first `code` in the first cell) and docs/trigger.md's tables
 * whose header's first cell is `provider` (one row per triggerable provider, by its `short` name).
 */
import type { ProviderMeta } from "../src/providers/facts.ts";

/** The first cells of the rows of every table in `markdown` whose header's first cell matches `head`. */
export function firstCells(markdown: string, head: RegExp): string[][] {
  const tables: string[][] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i + 1 < lines.length; i++) {
    const cell = (l: string) => l.split("|")[1]?.trim() ?? "";
    if (!lines[i]!.startsWith("|") || !head.test(cell(lines[i]!)) || !/^\|\s*-/.test(lines[i + 1]!)) continue;
    const rows: string[] = [];
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith("|"); j++) rows.push(cell(lines[j]!));
    tables.push(rows);
  }
  return tables;
}

function _diff(what: string, listed: readonly string[], expected: readonly string[]): string[] {
  const missing = expected.filter((n) => !listed.includes(n));
  const extra = listed.filter((n) => !expected.includes(n));
  return [
    ...missing.map((n) => `${what} does not list ${n}`),
    ...extra.map((n) => `${what} lists ${n}, which is no provider`),
  ];
}

/** What is wrong with the docs' provider tables given `metas` (the index's providers); [] when nothing. */
export function docsTableProblems(
  metas: readonly ProviderMeta[],
  docs: { signatures: string; trigger: string },
): string[] {
  const senders = metas.filter((m) => m.triggerable);
  const problems: string[] = [];
  const sig = firstCells(docs.signatures, /^Provider \(`provider`\)$/);
  if (sig.length !== 1) problems.push(`providers-and-signatures.md has ${sig.length} provider tables, not 1`);
  for (const rows of sig) {
    const names = rows.map((c) => /`([^`]+)`/.exec(c)?.[1] ?? c);
    problems.push(..._diff("providers-and-signatures.md's table", names, senders.map((m) => m.name)));
  }
  const trig = firstCells(docs.trigger, /^provider$/);
  if (trig.length < 2) problems.push(`trigger.md has ${trig.length} provider tables, expected 2`);
  for (const [i, rows] of trig.entries()) {
    problems.push(..._diff(`trigger.md's table ${i + 1}`, rows, senders.map((m) => m.short)));
  }
  return problems;
}
