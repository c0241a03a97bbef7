/**
 * `hooktap doctor`: gathers the facts (src/doctor/facts.ts), runs the
 * checks (src/doctor/checks.ts) and prints them. Not all well: exit 1.
 * @module
 */
import { starterConfig } from "../../config/load.ts";
import { allWell, runChecks } from "../../doctor/checks.ts";
import { gatherFacts } from "../../doctor/facts.ts";
import { doctorText } from "../../term/doctor_view.ts";
import { givenUpFacts, waitingTargets } from "./_waiting.ts";
import { findUndelivered, type Undelivered } from "../../send/undelivered.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { type CommandContext, storeOf } from "../_shared/context.ts";

/** `hooktap doctor`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  // One read of the logs for what waits and what was given up.
  let undelivered: Promise<Undelivered> | undefined;
  const found = () => undelivered ??= findUndelivered(storeOf(ctx), { afterWatermark: true });
  const facts = await gatherFacts({
    cwd: ctx.cwd,
    paths: storeOf(ctx),
    configPath: opts.config,
    starter: starterConfig().endpoints,
    waiting: (config) => waitingTargets(storeOf(ctx), config, found()),
    givenUp: (config) => givenUpFacts(storeOf(ctx), config, found()),
  });
  const checks = runChecks(facts);
  const ok = allWell(checks);
  if (opts.json) ctx.output.out(JSON.stringify({ ok, checks }) + "\n");
  else ctx.output.out(doctorText(checks, ctx.output.colors));
  if (!ok) ctx.exit(1);
}
