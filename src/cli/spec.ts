/**
 * How a command is declared: its name, description, arguments, options and
 * help text, as data. The declaration imports nothing heavy; the action
 * lives in `src/commands/<name>/run.ts` and is imported only when the command
 * runs (src/cli/lazy.ts), so `--help`, a usage error or one command never load the others.
 * @module
 */
import type { CommandContext } from "./context.ts";

/** One option. Its long flag is the kebab-case of its key: `forwardTo` → `--forward-to`. */
export interface OptionSpec {
  /** One-letter alias: `"n"` → `-n`. */
  readonly short?: string;
  /** Takes a value, shown as `<value>` in help: `"count"` → `-n, --limit <count>`. Without it, a flag. */
  readonly value?: string;
  readonly description: string;
  /** Value when the option is not given (value options only). */
  readonly default?: string;
  /** May be given several times; the values are collected in order. */
  readonly repeatable?: boolean;
  /** Also accepts `--no-<name>`, which sets it to `false`. */
  readonly negatable?: boolean;
  /** Allowed values. */
  readonly choices?: readonly string[];
  /** Must be given. */
  readonly required?: boolean;
  /** Left out of help and completion. */
  readonly hidden?: boolean;
  /** What completion offers for its value. */
  readonly complete?: "endpoint" | "method" | "event-id";
}

/** One positional argument. */
export interface ArgumentSpec {
  /** Name shown in help: `event-id`. */
  readonly name: string;
  readonly description: string;
  /** @default false */
  readonly required?: boolean;
  /** Takes every remaining word (last argument only). */
  readonly variadic?: boolean;
  /** Allowed values. */
  readonly choices?: readonly string[];
  /** What completion offers: recent event ids, endpoint names, trigger's providers and events, or the choices. */
  readonly complete?: "event-id" | "endpoint" | "trigger-provider" | "trigger-event";
}

/** A command's declaration. */
export interface CommandSpec<O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  readonly name: string;
  readonly description: string;
  readonly arguments?: readonly ArgumentSpec[];
  readonly options: O;
  /** Text after the option list (examples, exit status), starting with a blank line. */
  readonly after?: string;
  /** Left out of the command list (the completion helper). */
  readonly hidden?: boolean;
  /**
   * Loads the action module, out of the start-up graph: `lazyImport` (src/cli/lazy.ts) of
   * `src/commands/<name>/run.ts`, typed as `typeof import("./run.ts")`.
   */
  readonly load: () => Promise<{ run: (ctx: CommandContext, input: Input<O>) => Promise<void> }>;
}

type ValueOf<S extends OptionSpec> = S extends { repeatable: true } ? string[]
  : S extends { value: string }
    ? S extends { default: string } | { required: true } ? string : string | undefined
  : boolean | undefined;

/** The parsed options of a command declared with options `O`. */
export type OptionsOf<O extends Record<string, OptionSpec>> = { -readonly [K in keyof O]: ValueOf<O[K]> };

/** What the parser hands an action: positional arguments in order, and options by key. */
export interface ParsedInput {
  readonly args: readonly string[];
  readonly options: Readonly<Record<string, string | boolean | string[] | undefined>>;
}

/** An action's input, typed from its command's declaration. */
export interface Input<O extends Record<string, OptionSpec>> {
  readonly args: readonly string[];
  readonly options: OptionsOf<O>;
}

/** Declares a command's options; returns them unchanged, typed (the action reads `Input<typeof options>`). */
export function defineOptions<const O extends Record<string, OptionSpec>>(options: O): O {
  return options;
}

/** Declares a command; returns it unchanged, typed. */
export function defineCommand<const O extends Record<string, OptionSpec>>(
  spec: CommandSpec<O>,
): CommandSpec<O> {
  return spec;
}

/** `forwardTo` → `forward-to`. */
export function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** `-n, --limit <count>`, as help shows an option. */
export function optionFlags(key: string, option: OptionSpec): string {
  const long = `--${kebab(key)}${option.value === undefined ? "" : ` <${option.value}>`}`;
  return option.short === undefined ? long : `-${option.short}, ${long}`;
}
