/**
 * hooktap's command-line entry: runs the command tree and is the one place
 * that maps errors to messages and exit codes and calls `Deno.exit`.
 * @module
 */
import type { CommandContext } from "./src/cli/context.ts";
import { lazyImport } from "./src/cli/lazy.ts";
import { runCommand, runProgram } from "./src/cli/run.ts";
import type { CommandSpec } from "./src/cli/spec.ts";
import { ConfigError, HooktapError } from "./src/errors.ts";
import { terminalOutput } from "./src/term/output.ts";
// Imported at start, where Deno reads without asking: src/version.ts imports deno.json, outside src/, which
// the read access hooktap's lazily imported modules need (src/cli/lazy.ts) does not cover.
import { denoTooOld } from "./src/version.ts";

/**
 * Signals within this many ms of the first are the same interrupt: a terminal's Ctrl-C reaches every
 * process of the group, so a launcher that also forwards it (`deno task`, npm's Node launcher, `npm run`)
 * delivers it twice, milliseconds apart. A person's second Ctrl-C comes later, and stops waiting.
 */
const SAME_INTERRUPT_MS = 500;

/** The command tree (src/cli.ts): every command's declaration, imported when the help or completion needs it. */
const tree = () => lazyImport<typeof import("./src/cli.ts")>("src/cli.ts");

/**
 * A command's declaration, imported when asked for.
 * @internal
 */
export type Declaration = () => Promise<{ readonly [name: string]: unknown }>;

/**
 * Each command's declaration alone, by name: `hooktap <command>` imports its own declaration and no other
 * (the tree imports all 15 and what they share; `trigger` then read 50 project modules ahead from a checkout
 * instead of 34). main_test.ts keeps this table equal to src/cli.ts's list.
 * @internal
 */
export const DECLARATIONS: Readonly<Record<string, [Declaration, string]>> = {
  init: [
    () => lazyImport<typeof import("./src/commands/init/command.ts")>("src/commands/init/command.ts"),
    "init",
  ],
  dev: [
    () => lazyImport<typeof import("./src/commands/dev/command.ts")>("src/commands/dev/command.ts"),
    "dev",
  ],
  logs: [
    () => lazyImport<typeof import("./src/commands/logs/command.ts")>("src/commands/logs/command.ts"),
    "logs",
  ],
  inspect: [
    () => lazyImport<typeof import("./src/commands/inspect/command.ts")>("src/commands/inspect/command.ts"),
    "inspect",
  ],
  replay: [
    () => lazyImport<typeof import("./src/commands/replay/command.ts")>("src/commands/replay/command.ts"),
    "replay",
  ],
  trigger: [
    () => lazyImport<typeof import("./src/commands/trigger/command.ts")>("src/commands/trigger/command.ts"),
    "trigger",
  ],
  doctor: [
    () => lazyImport<typeof import("./src/commands/doctor/command.ts")>("src/commands/doctor/command.ts"),
    "doctor",
  ],
  mcp: [
    () => lazyImport<typeof import("./src/commands/mcp/command.ts")>("src/commands/mcp/command.ts"),
    "mcp",
  ],
  ui: [() => lazyImport<typeof import("./src/commands/ui/command.ts")>("src/commands/ui/command.ts"), "ui"],
  export: [
    () => lazyImport<typeof import("./src/commands/export/command.ts")>("src/commands/export/command.ts"),
    "exportCommand",
  ],
  hub: [
    () => lazyImport<typeof import("./src/commands/hub/command.ts")>("src/commands/hub/command.ts"),
    "hub",
  ],
  prune: [
    () => lazyImport<typeof import("./src/commands/prune/command.ts")>("src/commands/prune/command.ts"),
    "prune",
  ],
  rm: [() => lazyImport<typeof import("./src/commands/rm/command.ts")>("src/commands/rm/command.ts"), "rm"],
  completions: [
    () =>
      lazyImport<typeof import("./src/commands/completions/command.ts")>(
        "src/commands/completions/command.ts",
      ),
    "completions",
  ],
  complete: [
    () => lazyImport<typeof import("./src/commands/complete/command.ts")>("src/commands/complete/command.ts"),
    "complete",
  ],
};

/**
 * The declaration of the command `word` names, alone; `undefined` for a word that names none.
 * @internal for main_test.ts
 */
export async function declarationOf(word: string | undefined): Promise<CommandSpec | undefined> {
  if (word === undefined || !Object.hasOwn(DECLARATIONS, word)) return undefined;
  const [load, name] = DECLARATIONS[word]!;
  return (await load())[name] as CommandSpec;
}

/**
 * Whether the process was started ignoring SIGHUP (`nohup hooktap dev`). Deno cannot ask for a signal's
 * disposition, so Linux's /proc/self/status says (its SigIgn mask) when Deno may read it (only under
 * --allow-all); elsewhere `false`: a hangup then stops hooktap as Ctrl-C does, where it used to end it at
 * once (Deno's first signal listener resets an inherited "ignore", so `nohup` never held there anyway).
 */
function hangupIgnored(): boolean {
  const status = "/proc/self/status";
  try {
    if (Deno.permissions.querySync({ name: "read", path: status }).state !== "granted") return false;
    const mask = Deno.readTextFileSync(status).match(/^SigIgn:\s*([0-9a-f]+)$/m)?.[1];
    return mask !== undefined && (BigInt(`0x${mask}`) & 1n) === 1n; // SIGHUP is signal 1: the lowest bit
  } catch {
    return false;
  }
}

/** The commands that run until stopped: under npm they stop when npm does (see {@linkcode npmGone}). */
const LONG_RUNNING = new Set(["dev", "ui", "hub"]);

/**
 * Under npm (`npx hooktap dev`, an npm script), calls `onGone` once the process that started hooktap has gone:
 * npm runs a bin through `sh -c`, and a SIGTERM to npm's pid (a process manager's stop) ends npm and that
 * shell but reaches no further, which left `dev` running on its own, holding its port and its data directory.
 * Checked once a second (Deno tells the parent's pid as it is now; an orphan's changes). Not on Windows, whose
 * processes are not re-parented; nor outside npm, where `nohup hooktap dev &` is meant to outlive its shell.
 * @returns what stops the watch
 */
function npmGone(onGone: () => void): () => void {
  let underNpm = false;
  try {
    underNpm = Deno.build.os !== "windows" &&
      (Deno.env.get("npm_command") === "exec" || (Deno.env.get("npm_lifecycle_event") ?? "") !== "");
  } catch { /* no --allow-env: not known to be under npm */ }
  if (!underNpm) return () => {};
  const parent = Deno.ppid;
  const timer = setInterval(() => {
    if (Deno.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, 1000);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}

/** Runs hooktap with `args`; resolves to the exit code. */
export async function main(args: string[]): Promise<number> {
  const output = terminalOutput();
  const c = output.errColors;
  // An older Deno would fail mid-command with an error naming neither the cause nor the fix.
  const tooOld = denoTooOld();
  if (tooOld !== undefined) {
    output.err(`${c.red("error:")} ${tooOld}\n`);
    return 1;
  }
  const controller = new AbortController();
  let exitCode = 0;
  let firstInterrupt: number | undefined;
  const onSignal = () => {
    const now = performance.now();
    if (firstInterrupt === undefined) {
      firstInterrupt = now;
      controller.abort();
    } else if (now - firstInterrupt > SAME_INTERRUPT_MS) {
      Deno.exit(130); // a second Ctrl-C: stop waiting
    }
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  // SIGHUP, the terminal closed: stop as for Ctrl-C rather than die mid-write; under `nohup`, go on as it
  // promises (read before any listener: Deno's first one resets an inherited "ignore" of SIGHUP).
  const onHangup = Deno.build.os === "windows" ? undefined : hangupIgnored() ? () => {} : onSignal;
  for (const s of signals) Deno.addSignalListener(s, onSignal);
  if (onHangup !== undefined) Deno.addSignalListener("SIGHUP", onHangup);
  const unwatch = LONG_RUNNING.has(args[0] ?? "")
    ? npmGone(() => {
      output.err(
        `${
          c.yellow("npm, which started hooktap, has stopped")
        } (its process is gone): stopping as for Ctrl-C.\n`,
      );
      onSignal();
    })
    : () => {};
  const ctx: CommandContext = {
    output,
    cwd: Deno.cwd(),
    exit: (code) => (exitCode = code),
    signal: controller.signal,
    commands: async () => (await tree()).COMMANDS,
  };
  try {
    // The command's own declaration alone when the first word names one (its start-up reads no other);
    // the whole tree for the help, an option first, or a typo (its did-you-mean).
    const declared = await declarationOf(args[0]);
    if (declared !== undefined) await runCommand(declared, ctx, args.slice(1));
    else await runProgram((await tree()).PROGRAM, ctx, args);
    return exitCode;
  } catch (error) {
    if (error instanceof Deno.errors.BrokenPipe) return 0; // `hooktap logs | head`
    if (error instanceof HooktapError) {
      if (error.reported) return error.exitCode;
      output.err(`${c.red("error:")} ${error.message}\n`);
      if (error instanceof ConfigError) { for (const issue of error.issues) output.err(`  - ${issue}\n`); }
      return error.exitCode;
    }
    if (error instanceof Deno.errors.NotCapable) {
      // Deno refused an operation the permission flags do not cover: say which, and how to grant it.
      output.err(
        `${c.red("error:")} ${error.message.replace(/\.?$/, ".")} hooktap runs under Deno's permissions: ` +
          "grant this one (a flag of `deno run`, e.g. --allow-write=PATH), or, when an installed `hooktap` " +
          "(npm package, `deno task install`) refuses something its own command needs, report it.\n",
      );
      return 77;
    }
    output.err(`${c.red("error:")} hooktap failed unexpectedly. Please report this with the output below.\n`);
    output.err(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    return 70;
  } finally {
    unwatch();
    for (const s of signals) Deno.removeSignalListener(s, onSignal);
    if (onHangup !== undefined) Deno.removeSignalListener("SIGHUP", onHangup);
  }
}

/** Runs hooktap with `args` and exits the process with its exit code (`deno run main.ts`, `mod.ts` as a program). */
export async function run(args: string[]): Promise<never> {
  Deno.exit(await main(args));
}

if (import.meta.main) {
  await run(Deno.args);
}
