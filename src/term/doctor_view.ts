/**
 * `hooktap doctor`'s report: one mark per check, what was found, what to do.
 * @module
 */
import type { Check } from "../doctor/checks.ts";
import type { Colors } from "./colors.ts";
import { safeLine } from "../text/sanitize.ts";

const TITLES: Record<Check["id"], string> = {
  dev: "receiver running",
  port: "port answers",
  tunnel: "tunnel",
  hub: "hub",
  senders: "senders' URLs and methods",
  events: "recent events",
  forward: "forwarding",
  "given-up": "given up",
  config: "config",
};

/** The report, for stdout. */
export function doctorText(checks: readonly Check[], colors: Colors): string {
  const mark = (s: Check["status"]) =>
    s === "ok"
      ? colors.green("ok  ")
      : s === "skip"
      ? colors.dim("--  ")
      : s === "warn"
      ? colors.yellow("warn")
      : colors.red("FAIL");
  const lines: string[] = [];
  for (const c of checks) {
    const [first, ...rest] = c.summary.split("\n");
    lines.push(`${mark(c.status)}  ${colors.bold(TITLES[c.id])}: ${safeLine(first ?? "")}`);
    for (const r of rest) lines.push(`      ${safeLine(r)}`);
    for (const d of c.details ?? []) lines.push(`      ${colors.dim(safeLine(d))}`);
    if (c.fix !== undefined && c.status !== "ok") {
      lines.push(`      ${colors.cyan("fix:")} ${safeLine(c.fix)}`);
    }
  }
  const bad = checks.filter((c) => c.status === "fail" || c.status === "warn").length;
  lines.push(
    "",
    bad === 0 ? colors.green("All well.") : `${bad} thing${bad === 1 ? "" : "s"} to fix, in the order above.`,
  );
  return lines.join("\n") + "\n";
}
