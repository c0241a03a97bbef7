/**
 * The command tree: every command's declaration, in the order help lists
 * them. Declarations are data; each command's action is imported only when
 * it runs (src/cli/run.ts), so start-up costs only what the command uses.
 * @module
 */
import { complete } from "./commands/complete/command.ts";
import { completions } from "./commands/completions/command.ts";
import { dev } from "./commands/dev/command.ts";
import { doctor } from "./commands/doctor/command.ts";
import { exportCommand } from "./commands/export/command.ts";
import { hub } from "./commands/hub/command.ts";
import { init } from "./commands/init/command.ts";
import { inspect } from "./commands/inspect/command.ts";
import { logs } from "./commands/logs/command.ts";
import { mcp } from "./commands/mcp/command.ts";
import { prune } from "./commands/prune/command.ts";
import { replay } from "./commands/replay/command.ts";
import { trigger } from "./commands/trigger/command.ts";
import { ui } from "./commands/ui/command.ts";
import { rm } from "./commands/rm/command.ts";
import type { Program } from "./cli/run.ts";
import type { CommandSpec } from "./cli/spec.ts";
import { VERSION } from "./version.ts";

/** hooktap's version (src/version.ts). */
export { VERSION };

/** Every command, in help order (hidden ones last). */
export const COMMANDS: readonly CommandSpec[] = [
  init,
  dev,
  logs,
  inspect,
  replay,
  trigger,
  doctor,
  mcp,
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
