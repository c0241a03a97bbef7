/**
 * How a command is declared: its name, description, arguments, options and
 * help text, as data. The declaration imports nothing heavy; the action
 * lives in `src/commands/<name>/run.ts` and is imported only when the command
 * runs (src/cli/lazy.ts), so `--help`, a usage error or one command never load the others.
 * @module
 */
import type { CommandContext } from "./context.ts";

/**
 * What an option's value is, checked once when the command line is read: the action gets the typed value, and a
 * bad one is a usage error naming the option, the value and what is expected. Build one with {@linkcode duration},
 * {@linkcode time}, {@linkcode integer}, {@linkcode port}, {@linkcode rate}, {@linkcode url}, {@linkcode host},
 * {@linkcode choice}, {@linkcode path} or {@linkcode text}. Pure data, so a declaration stays cheap to load.
 */
export type OptionKind =
  | { readonly type: "text"; readonly placeholder: string }
  | { readonly type: "path"; readonly placeholder: string }
  | {
    readonly type: "duration";
    readonly placeholder: string;
    /** Unit of a bare number; `null`: a unit is required. */
    readonly bare: "s" | "ms" | null;
    /** Whether 0 is allowed. */
    readonly zero: boolean;
  }
  | { readonly type: "time"; readonly placeholder: string }
  | {
    readonly type: "integer";
    readonly placeholder: string;
    readonly min: number;
    readonly max?: number;
    /** What the expectation adds: `0 picks a free port`. */
    readonly note?: string;
  }
  | { readonly type: "rate"; readonly placeholder: string }
  | { readonly type: "url"; readonly placeholder: string }
  | { readonly type: "host"; readonly placeholder: string }
  | { readonly type: "choice"; readonly placeholder: string; readonly values: readonly string[] };

/** Free text. */
export function text(placeholder = "text"): { readonly type: "text"; readonly placeholder: string } {
  return { type: "text", placeholder };
}

/** A file path, relative to the working directory. */
export function path(placeholder = "path"): { readonly type: "path"; readonly placeholder: string } {
  return { type: "path", placeholder };
}

/** A duration (`30s`, `500ms`, `1h30m`), read as milliseconds; above 0 unless `zero`. */
export function duration(
  options: { placeholder?: string; bare?: "s" | "ms" | null; zero?: boolean } = {},
): Extract<OptionKind, { type: "duration" }> {
  return {
    type: "duration",
    placeholder: options.placeholder ?? "duration",
    bare: options.bare === undefined ? "s" : options.bare,
    zero: options.zero ?? false,
  };
}

/** A time: a duration back from now (`2h`) or an ISO time, read as a `Date`. */
export function time(placeholder = "when"): { readonly type: "time"; readonly placeholder: string } {
  return { type: "time", placeholder };
}

/** A whole number from `min` (default 0) to `max`. */
export function integer(
  options: { placeholder?: string; min?: number; max?: number; note?: string } = {},
): Extract<OptionKind, { type: "integer" }> {
  return {
    type: "integer",
    placeholder: options.placeholder ?? "n",
    min: options.min ?? 0,
    ...(options.max !== undefined ? { max: options.max } : {}),
    ...(options.note !== undefined ? { note: options.note } : {}),
  };
}

/** A TCP port, 0 to 65535 (0: any free port). */
export function port(): Extract<OptionKind, { type: "integer" }> {
  return integer({ placeholder: "port", min: 0, max: 65535, note: "0 picks a free port" });
}

/** Events per second above 0: `10`, `10/s`, `2.5/s`. */
export function rate(placeholder = "n/s"): { readonly type: "rate"; readonly placeholder: string } {
  return { type: "rate", placeholder };
}

/** An http:// or https:// URL (kept as typed: a send adds the event's query string only when it has none). */
export function url(placeholder = "url"): { readonly type: "url"; readonly placeholder: string } {
  return { type: "url", placeholder };
}

/** An interface to bind: an IP address or a host name (`127.0.0.1`, `0.0.0.0`, `::1`, `localhost`). */
export function host(): { readonly type: "host"; readonly placeholder: string } {
  return { type: "host", placeholder: "host" };
}

/** One of `values` (any case; `_` and spaces read as `-`). */
export function choice<const V extends readonly string[]>(
  values: V,
  placeholder = "name",
): { readonly type: "choice"; readonly placeholder: string; readonly values: V } {
  return { type: "choice", placeholder, values };
}

/** One option. Its long flag is the kebab-case of its key: `forwardTo` → `--forward-to`. */
export interface OptionSpec {
  /** One-letter alias: `"n"` → `-n`. */
  readonly short?: string;
  /** What its value is; without it (and without `value`), a flag. */
  readonly kind?: OptionKind;
  /** Takes a text value, shown as `<value>` in help: `"name"` → `--endpoint <name>`; with `kind`, its placeholder. */
  readonly value?: string;
  readonly description: string;
  /** Value when the option is not given (value options only), read as if given. */
  readonly default?: string;
  /** May be given several times; the values are collected in order. */
  readonly repeatable?: boolean;
  /** Also accepts `--no-<name>`, which sets it to `false`. */
  readonly negatable?: boolean;
  /** Must be given. */
  readonly required?: boolean;
  /** Options (by key) that must be given with this one: `requires: ["outOfOrder"]`. */
  readonly requires?: readonly string[];
  /** Options (by key) that cannot be given with this one: `conflicts: ["follow"]`. */
  readonly conflicts?: readonly string[];
  /** Left out of help and completion. */
  readonly hidden?: boolean;
  /** What completion offers for its value. */
  readonly complete?: "endpoint" | "method" | "event-id" | "provider";
}

/** Whether `option` takes a value. */
export function takesValue(option: OptionSpec): boolean {
  return option.kind !== undefined || option.value !== undefined;
}

/** The values `option` allows, when it is a choice. */
export function choicesOf(option: OptionSpec): readonly string[] | undefined {
  return option.kind?.type === "choice" ? option.kind.values : undefined;
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
  /**
   * The values completion offers after each value of the argument before it (`hub channel` → create, rm),
   * when they depend on it; `choices` still says what the parser accepts.
   */
  readonly choicesAfter?: Readonly<Record<string, readonly string[]>>;
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

/** The value a kind is read as. */
export type KindValue<K extends OptionKind> = K extends { type: "duration" | "integer" | "rate" } ? number
  : K extends { type: "time" } ? Date
  : K extends { type: "choice"; values: readonly (infer V)[] } ? V
  : string;

type One<S extends OptionSpec> = S extends { kind: infer K extends OptionKind } ? KindValue<K> : string;

type ValueOf<S extends OptionSpec> = S extends { repeatable: true } ? One<S>[]
  : S extends { value: string } | { kind: OptionKind }
    ? S extends { default: string } | { required: true } ? One<S> : One<S> | undefined
  : boolean | undefined;

/** The parsed options of a command declared with options `O`. */
export type OptionsOf<O extends Record<string, OptionSpec>> = { -readonly [K in keyof O]: ValueOf<O[K]> };

/** What the parser hands an action: positional arguments in order, and options by key. */
export interface ParsedInput {
  readonly args: readonly string[];
  readonly options: Readonly<Record<string, OptionValue>>;
}

/** One parsed option's value. */
export type OptionValue = string | number | Date | boolean | (string | number | Date)[] | undefined;

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
  // A loop, not a replace with a pattern: every command's start-up kebabs each of its options once, and V8
  // compiles a pattern used that often to machine code first (~0.1 ms of `trigger`'s start).
  let out = "";
  for (const c of key) out += c >= "A" && c <= "Z" ? `-${c.toLowerCase()}` : c;
  return out;
}

/** What help shows for an option's value: `count` in `--limit <count>`. */
export function placeholderOf(option: OptionSpec): string | undefined {
  return option.value ?? option.kind?.placeholder;
}

/** `-n, --limit <count>`, as help shows an option. */
export function optionFlags(key: string, option: OptionSpec): string {
  const shown = placeholderOf(option);
  const long = `--${kebab(key)}${shown === undefined ? "" : ` <${shown}>`}`;
  return option.short === undefined ? long : `-${option.short}, ${long}`;
}
