/**
 * The command tree: every command's declaration, in the order help lists
 * them, each imported when asked for (src/cli/lazy.ts), like its action
 * (src/cli/run.ts). `hooktap <command>` loads its own declaration alone
 * ({@linkcode programFor}); the help, completion, a typo's did-you-mean and
 * the docs load them all ({@linkcode loadCommands}). A declaration is data,
 * so start-up costs only what the command uses.
 * @module
 */
import { lazyImport } from "./cli/lazy.ts";
import type { Program } from "./cli/run.ts";
import type { CommandSpec } from "./cli/spec.ts";
import { VERSION } from "./version.ts";

/** hooktap's version (src/version.ts). */
export { VERSION };

type Load = () => Promise<CommandSpec>;
const spec = (s: unknown) => s as CommandSpec;

/** Every command's declaration by name, in help order (hidden ones last). */
const DECLARATIONS: Readonly<Record<string, Load>> = {
  init: async () =>
    spec(
      (await lazyImport<typeof import("./commands/init/command.ts")>("src/commands/init/command.ts")).init,
    ),
  dev: async () =>
    spec((await lazyImport<typeof import("./commands/dev/command.ts")>("src/commands/dev/command.ts")).dev),
  logs: async () =>
    spec(
      (await lazyImport<typeof import("./commands/logs/command.ts")>("src/commands/logs/command.ts")).logs,
    ),
  inspect: async () =>
    spec(
      (await lazyImport<typeof import("./commands/inspect/command.ts")>("src/commands/inspect/command.ts"))
        .inspect,
    ),
  replay: async () =>
    spec(
      (await lazyImport<typeof import("./commands/replay/command.ts")>("src/commands/replay/command.ts"))
        .replay,
    ),
  trigger: async () =>
    spec(
      (await lazyImport<typeof import("./commands/trigger/command.ts")>("src/commands/trigger/command.ts"))
        .trigger,
    ),
  doctor: async () =>
    spec(
      (await lazyImport<typeof import("./commands/doctor/command.ts")>("src/commands/doctor/command.ts"))
        .doctor,
    ),
  mcp: async () =>
    spec((await lazyImport<typeof import("./commands/mcp/command.ts")>("src/commands/mcp/command.ts")).mcp),
  ui: async () =>
    spec((await lazyImport<typeof import("./commands/ui/command.ts")>("src/commands/ui/command.ts")).ui),
  export: async () =>
    spec(
      (await lazyImport<typeof import("./commands/export/command.ts")>("src/commands/export/command.ts"))
        .exportCommand,
    ),
  hub: async () =>
    spec((await lazyImport<typeof import("./commands/hub/command.ts")>("src/commands/hub/command.ts")).hub),
  prune: async () =>
    spec(
      (await lazyImport<typeof import("./commands/prune/command.ts")>("src/commands/prune/command.ts")).prune,
    ),
  rm: async () =>
    spec((await lazyImport<typeof import("./commands/rm/command.ts")>("src/commands/rm/command.ts")).rm),
  completions: async () =>
    spec(
      (await lazyImport<typeof import("./commands/completions/command.ts")>(
        "src/commands/completions/command.ts",
      )).completions,
    ),
  complete: async () =>
    spec(
      (await lazyImport<typeof import("./commands/complete/command.ts")>("src/commands/complete/command.ts"))
        .complete,
    ),
};

/** Every command, in help order (hidden ones last). */
export async function loadCommands(): Promise<readonly CommandSpec[]> {
  return await Promise.all(Object.values(DECLARATIONS).map((load) => load()));
}

/** The `hooktap` program's texts. */
const TEXTS = {
  version: VERSION,
  description:
    "Receive webhooks on your own machine: capture every request to .hooktap/events.jsonl, then browse and replay it.",
  after: "\nQuick start:\n  hooktap init --yes      write hooktap.config.ts (POST /webhook on port 8787)\n" +
    "  hooktap dev             receive; in another terminal: ngrok http 8787\n" +
    "  hooktap logs            list what arrived\n",
};

/** The `hooktap` program with every command. */
export async function loadProgram(): Promise<Program> {
  return { ...TEXTS, commands: await loadCommands() };
}

/**
 * The program that runs `args` (the words after `hooktap`): the command their first word names, alone, so
 * its start-up imports no other command's declaration; else (the help, an option first, a typo and its
 * did-you-mean) every command. Both run and print alike (src/cli/run.ts finds a command by its name).
 */
export async function programFor(args: readonly string[]): Promise<Program> {
  const first = args[0] ?? "";
  if (!Object.hasOwn(DECLARATIONS, first)) return await loadProgram();
  return { ...TEXTS, commands: [await DECLARATIONS[first]!()] };
}
