/**
 * A forward target's `when`: which events it takes, in the filter language
 * of `logs` and `export` (src/query/filter.ts). The keys are the CLI
 * filters' names in camel case: `type`, `provider`, `verdict`, `path`,
 * `where`, `hasHeader` (`--has-header`) and `filterMethod`
 * (`--filter-method`). For a field with one value per event (type, provider,
 * verdict, filterMethod, path) a list means any of them; for `where` and
 * `hasHeader` a list means all of them, as repeating the CLI option does;
 * several keys mean all of them. Pure; every problem is pushed with its
 * field path. `when` as a user writes it is `ForwardWhen`, in
 * src/config/types.ts.
 * @module
 */
import type { ResolvedWhen } from "../ports.ts";
import { compileFilter, type EventFilter, VERDICTS } from "../query/filter.ts";
import type { VerdictStatus } from "../event/record.ts";
import { checkKeys, isRecord, type Issues, show } from "./_check.ts";

/** `when` resolved (defined with the ports, src/ports.ts). */
export type { ResolvedWhen };

/** The keys of `when`. */
export const WHEN_FIELDS: readonly string[] = [
  "type",
  "provider",
  "verdict",
  "path",
  "filterMethod",
  "where",
  "hasHeader",
];

const ONE_OF: Record<string, (v: string) => EventFilter> = {
  type: (v) => ({ type: v }),
  provider: (v) => ({ provider: v }),
  verdict: (v) => ({ verdict: v as VerdictStatus }),
  path: (v) => ({ path: v }),
  filterMethod: (v) => ({ method: v }),
};

/**
 * Validates a `when` found at `at`. `provider` is the endpoint's configured
 * provider: a `when.provider` that names none of it can never match.
 */
export function checkWhen(
  value: unknown,
  at: string,
  issues: Issues,
  provider?: string,
): ResolvedWhen | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    issues.push(`${at} must be an object like { type: "push" }, got ${show(value)}`);
    return undefined;
  }
  checkKeys(value, WHEN_FIELDS, at, "a when", issues);
  const before = issues.length;
  const keys: EventFilter[][] = [];
  for (const key of WHEN_FIELDS) {
    const raw = value[key];
    if (raw === undefined) continue;
    const list: unknown[] = Array.isArray(raw) ? raw : [raw];
    const where = `${at}.${key}`;
    if (list.length === 0) {
      issues.push(`${where} must not be an empty list (it would take no event): leave ${key} out`);
      continue;
    }
    const bad = list.findIndex((v) => typeof v !== "string" || v.trim() === "");
    if (bad !== -1) {
      issues.push(
        `${Array.isArray(raw) ? `${where}[${bad}]` : where} must be a non-empty string, got ${
          show(list[bad])
        }`,
      );
      continue;
    }
    const texts = list as string[];
    if (key === "verdict") {
      const wrong = texts.find((v) => !(VERDICTS as readonly string[]).includes(v));
      if (wrong !== undefined) {
        issues.push(`${where} must be one of ${VERDICTS.join(", ")}, got ${show(wrong)}`);
        continue;
      }
    }
    if (key === "provider" && provider !== undefined && !texts.some((p) => p.toLowerCase() === provider)) {
      issues.push(
        `${where} ${show(raw)} can never match: this endpoint's provider is "${provider}" ` +
          `(leave provider out, or forward from the endpoint that receives ${show(texts[0])})`,
      );
      continue;
    }
    const filters = key === "where"
      ? [{ where: texts }]
      : key === "hasHeader"
      ? [{ header: texts }]
      : texts.map((v) => ONE_OF[key]!(v));
    try {
      for (const f of filters) compileFilter(f);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      issues.push(`${where}: ${why.replace(/^--(where|header)/, key)}`);
      continue;
    }
    keys.push(filters);
  }
  if (issues.length > before) return undefined;
  return keys;
}
