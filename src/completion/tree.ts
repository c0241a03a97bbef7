/**
 * Shell completion with `@bomb.sh/tab`: the generated script asks
 * `hooktap complete -- <words>` for candidates at each TAB, and this module
 * answers from hooktap's own command tree (commands, options, arguments)
 * plus live data: endpoint names for `--endpoint`, recent event ids for
 * `inspect` and `replay`.
 *
 * tab prints with `console.log`; its output is captured here and handed back
 * as a string, so that the commands print through `ctx.output` like every
 * other. tab is imported lazily, by the two commands that need it.
 * @module
 */
import type { Command } from "commander";

/** Shells a completion script can be printed for. */
export const SHELLS = ["bash", "zsh", "fish", "powershell"] as const;
/** One of {@linkcode SHELLS}. */
export type Shell = typeof SHELLS[number];

/** Live candidates for values that depend on the project. */
export interface CompletionData {
  /** Endpoint names, for `--endpoint`. */
  endpoints: readonly string[];
  /** Recent event ids (newest first), for `inspect` and `replay`. */
  eventIds: readonly string[];
}

const METHODS = ["POST", "GET", "PUT", "PATCH", "DELETE"];

type Complete = (value: string, description: string) => void;

function _capture(run: () => void): string {
  const lines: string[] = [];
  // tab writes with console.log: its words are collected here, then printed through ctx.output.
  // deno-lint-ignore no-console
  const original = console.log;
  // deno-lint-ignore no-console
  console.log = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    run();
  } finally {
    // deno-lint-ignore no-console
    console.log = original;
  }
  return lines.length === 0 ? "" : lines.join("\n") + "\n";
}

function _valuesFor(optionName: string, data: CompletionData): (complete: Complete) => void {
  const list = optionName === "endpoint" ? data.endpoints : optionName === "method" ? METHODS : [];
  return (complete) => {
    for (const value of list) complete(value, "");
  };
}

/** tab's tree of `program` (its visible commands, their options and arguments). */
async function _tree(program: Command, data: CompletionData) {
  const { RootCommand } = await import("@bomb.sh/tab");
  const root = new RootCommand();
  const addOptions = (
    target: InstanceType<typeof RootCommand> | ReturnType<typeof root.command>,
    cmd: Command,
  ) => {
    for (const option of cmd.options) {
      const long = option.long?.replace(/^--/, "");
      if (long === undefined || option.hidden) continue;
      const alias = option.short?.replace(/^-/, "");
      if (option.required || option.optional) {
        target.option(long, option.description, _valuesFor(long, data), alias);
      } else if (alias !== undefined) target.option(long, option.description, alias);
      else target.option(long, option.description);
    }
  };
  addOptions(root, program);
  root.option("help", "show help", "h");
  for (const cmd of program.commands) {
    const name = cmd.name();
    if (name === "complete") continue;
    const sub = root.command(name, cmd.description());
    addOptions(sub, cmd);
    sub.option("help", "show help", "h");
    for (const arg of cmd.registeredArguments) {
      const values: readonly string[] = arg.name() === "event-id"
        ? data.eventIds
        : arg.argChoices ?? (name === "completions" ? SHELLS : []);
      sub.argument(arg.name(), (complete) => {
        for (const v of values) complete(v, "");
      }, arg.variadic);
    }
  }
  return root;
}

/** The completion script for `shell`; it calls `name complete -- ...` at each TAB. */
export async function completionScript(program: Command, shell: Shell, name = "hooktap"): Promise<string> {
  const root = await _tree(program, { endpoints: [], eventIds: [] });
  return _capture(() => root.setup(name, name, shell));
}

/** The candidates for the words typed so far (the last one is being completed), in tab's format. */
export async function completeWords(
  program: Command,
  words: string[],
  data: CompletionData,
): Promise<string> {
  const root = await _tree(program, data);
  return _capture(() => root.parse([...words]));
}
