/**
 * Runs the program: finds the command, parses its words, prints help or
 * the version, or loads the command's action and runs it.
 * @module
 */
import { UsageError } from "../errors.ts";
import { closest } from "../text/suggest.ts";
import { invokedAs, suggestCommand } from "../text/command_line.ts";
import type { CommandContext } from "./context.ts";
import { lazyImport } from "./lazy.ts";
import { HELP, parseCommand } from "./parse.ts";
import type { CommandSpec, Input, OptionSpec } from "./spec.ts";

/** The program's commands and texts. */
export interface Program {
  version: string;
  description: string;
  /** Text after the command list. */
  after: string;
  commands: readonly CommandSpec[];
}

function _width(): number {
  try {
    return Deno.stdout.isTerminal() ? Math.min(Deno.consoleSize().columns, 100) : 80;
  } catch {
    return 80;
  }
}

// The help texts load only when asked for (a command's start-up never reads them).
const _texts = () => lazyImport<typeof import("./help.ts")>("src/cli/help.ts");

function _find(program: Program, name: string): CommandSpec {
  const found = program.commands.find((c) => c.name === name);
  if (found !== undefined) return found;
  const near = closest(name, program.commands.filter((c) => !c.hidden).map((c) => c.name));
  throw new UsageError(
    `unknown command '${name}'${near === undefined ? "" : ` (did you mean ${near}?)`}. ` +
      `Run \`${suggestCommand(["--help"])}\` for the commands.`,
  );
}

/**
 * An option before the command: a command's option (`hooktap -c x.ts logs`) is shown after its command, a
 * near miss of `--version` or `--help` (`-v`, `--verison`) is named.
 */
function _optionBeforeCommand(program: Program, args: readonly string[]): UsageError {
  const first = args[0]!;
  const named = args.find((w) => program.commands.some((c) => c.name === w && !c.hidden));
  const near = first === "-v" ? "-V" : closest(first.replace(/^-+/, ""), ["version", "help"]);
  const hint = named !== undefined
    ? `: options go after the command (${suggestCommand([named, ...args.filter((w) => w !== named)])})`
    : near === undefined
    ? ""
    : ` (did you mean ${near === "-V" ? "-V, --version" : `--${near}`}?)`;
  return new UsageError(
    `unknown option '${first}' before the command${hint}. Run \`${
      suggestCommand(["--help"])
    }\` for the commands.`,
  );
}

/** Runs `args` (the words after `hooktap`). */
export async function runProgram(
  program: Program,
  ctx: CommandContext,
  args: readonly string[],
): Promise<void> {
  const [first, ...rest] = args;
  const texts = _texts;
  const help = async () => (await texts()).programHelp(program.commands, program, _width(), invokedAs());
  if (first === undefined) {
    ctx.output.err(await help());
    ctx.exit(2);
    return;
  }
  if ((first === "-V" || first === "--version") && rest.length > 0) {
    throw new UsageError(`${first} prints the version and takes nothing after it, got "${rest[0]}".`);
  }
  if (first === "-V" || first === "--version") return void ctx.output.out(`${program.version}\n`);
  if (["-h", "--help", "help"].includes(first) && rest.length > 1) {
    throw new UsageError(
      `${first} takes one command at most, got "${rest.join(" ")}": ${suggestCommand(["help", rest[0]!])}.`,
    );
  }
  if ((first === "-h" || first === "--help") && rest[0] === undefined) {
    return void ctx.output.out(await help());
  }
  if (first === "help" || first === "-h" || first === "--help") {
    ctx.output.out(
      rest[0] === undefined
        ? await help()
        : (await texts()).commandHelp(_find(program, rest[0]), _width(), invokedAs()),
    );
    return;
  }
  if (first.startsWith("-")) throw _optionBeforeCommand(program, args);
  await runCommand(_find(program, first), ctx, rest);
}

/**
 * Runs the command `spec` with `rest` (the words after its name): prints its help, or loads its action and
 * runs it. main.ts calls it with the one declaration a command's name imports (src/cli.ts imports them all).
 */
export async function runCommand(
  spec: CommandSpec,
  ctx: CommandContext,
  rest: readonly string[],
): Promise<void> {
  const input = parseCommand(spec, rest);
  if (input === HELP) return void ctx.output.out((await _texts()).commandHelp(spec, _width(), invokedAs()));
  const { run } = await spec.load();
  // The parser filled every declared option with a value of its declared kind.
  await run(ctx, input as Input<Record<string, OptionSpec>>);
}
