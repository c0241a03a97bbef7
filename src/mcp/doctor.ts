/**
 * `doctor`: the findings of `hooktap doctor` (src/doctor/): is dev running,
 * the port, tunnels, the senders' URLs and methods, recent events, the config.
 * @module
 */
import { z } from "zod";
import { starterConfig } from "../config/load.ts";
import { allWell, runChecks } from "../doctor/checks.ts";
import { gatherFacts } from "../doctor/facts.ts";
import { type McpContext, storeOf } from "./context.ts";
import { answer } from "./result.ts";
import { defineTool } from "./tool.ts";

/** The tool. */
export function doctorTool(ctx: McpContext) {
  return defineTool({
    name: "doctor",
    title: "Why does no webhook arrive?",
    description:
      "Run `hooktap doctor`'s checks in this project: dev running, its port, a tunnel and the port it " +
      "points at, requests that matched no endpoint (wrong URL or method), recent events, the config. " +
      "Each check has a status (ok, warn, fail, skip), what was found and what to do.",
    input: {},
    output: {
      ok: z.boolean().describe("every check ok (or skipped)"),
      checks: z.array(z.object({
        id: z.string(),
        status: z.enum(["ok", "warn", "fail", "skip"]),
        summary: z.string(),
        fix: z.string().optional(),
        details: z.array(z.string()).optional(),
      })),
    },
    readOnly: true,
    async run() {
      const facts = await gatherFacts({ cwd: ctx.cwd, paths: storeOf(ctx), configPath: ctx.configPath });
      const checks = runChecks(facts, starterConfig().endpoints);
      const ok = allWell(checks);
      const lines = checks.map((c) =>
        `${c.status.padEnd(4)} ${c.id}: ${c.summary}${c.fix ? `\n     fix: ${c.fix}` : ""}`
      );
      return answer({ ok, checks }, `${ok ? "All well." : "Not all well."}\n${lines.join("\n")}`);
    },
  });
}
