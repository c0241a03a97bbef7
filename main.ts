/**
 * hooktap's command-line entry: runs the command tree and is the one place
 * that maps errors to messages and exit codes and calls `Deno.exit`.
 * @module
 */
import { loadCommands, programFor } from "./src/cli.ts";
import type { CommandContext } from "./src/cli/context.ts";
import { runProgram } from "./src/cli/run.ts";
import { ConfigError, HooktapError } from "./src/errors.ts";
import { terminalOutput } from "./src/term/output.ts";

/**
 * Signals within this many ms of the first are the same interrupt: a terminal's Ctrl-C reaches every
 * process of the group, so a launcher that also forwards it (`deno task`, npm's Node launcher, `npm run`)
 * delivers it twice, milliseconds apart. A person's second Ctrl-C comes later, and stops waiting.
 */
const SAME_INTERRUPT_MS = 500;

/** Runs hooktap with `args`; resolves to the exit code. */
export async function main(args: string[]): Promise<number> {
  const output = terminalOutput();
  const c = output.errColors;
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
  for (const s of signals) Deno.addSignalListener(s, onSignal);
  const ctx: CommandContext = {
    output,
    cwd: Deno.cwd(),
    exit: (code) => (exitCode = code),
    signal: controller.signal,
    commands: loadCommands,
  };
  try {
    // The command's own declaration alone when the first word names one (its start-up reads no other).
    await runProgram(await programFor(args), ctx, args);
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
    for (const s of signals) Deno.removeSignalListener(s, onSignal);
  }
}

/** Runs hooktap with `args` and exits the process with its exit code (`deno run main.ts`, `mod.ts` as a program). */
export async function run(args: string[]): Promise<never> {
  Deno.exit(await main(args));
}

if (import.meta.main) {
  await run(Deno.args);
}
