/**
 * The command tree: every command's declaration, in the order help lists
 * them. Declarations are data; each command's action is imported only when
 * it runs (src/cli/run.ts), so start-up costs only what the command uses.
 * @module
 */
import denoJson from "../deno.json" with { type: "json" };
import { complete } from "./cli/commands/complete.ts";
import { completions } from "./cli/commands/completions.ts";
import { dev } from "./cli/commands/dev.ts";
import { doctor } from "./cli/commands/doctor.ts";
import { exportCommand } from "./cli/commands/export.ts";
import { hub } from "./cli/commands/hub.ts";
import { init } from "./cli/commands/init.ts";
import { inspect } from "./cli/commands/inspect.ts";
import { logs } from "./cli/commands/logs.ts";
import { prune } from "./cli/commands/prune.ts";
import { replay } from "./cli/commands/replay.ts";
import { ui } from "./cli/commands/ui.ts";
import { rm } from "./cli/commands/rm.ts";
import type { Program } from "./cli/run.ts";
import type { CommandSpec } from "./cli/spec.ts";

/** hooktap's version, from deno.json. */
export const VERSION: string = denoJson.version;

/** Every command, in help order (hidden ones last). */
export const COMMANDS: readonly CommandSpec[] = [
  init,
  dev,
  logs,
  inspect,
  replay,
  doctor,
  ui,
  exportCommand,
  hub,
  prune,
  rm,
  completions,
  complete,
] as unknown as CommandSpec[];

/** The `hooktap` program. */
export const PROGRAM: Program = {
  version: VERSION,
  description:
    "Receive webhooks on your own machine: capture every request to .hooktap/events.jsonl, then browse and replay it.",
  after: "\nQuick start:\n  hooktap init --yes      write hooktap.config.ts (POST /webhook on port 8787)\n" +
    "  hooktap dev             receive; in another terminal: ngrok http 8787\n" +
    "  hooktap logs            list what arrived\n",
  commands: COMMANDS,
};
