/**
 * Reads a command's words against its declaration: flags (`-n 3`, `-n3`,
 * `--limit 3`, `--limit=3`, `-fq`, `--no-ui`), arguments in any order around
 * them, `--` to end options. Each value is read by its option's kind
 * (src/cli/spec.ts) and the options' relations (`requires`, `conflicts`) are
 * checked, so an action gets typed values it need not check. Every mistake is
 * a {@linkcode UsageError} that names the problem and the fix. Pure but for
 * the clock a `time` value is read against.
 * @module
 */
import { UsageError } from "../errors.ts";
import { suggestCommand } from "../text/command_line.ts";
import { httpUrlProblem, isBareNumber, parseDuration, parseWhen } from "../text/values.ts";
import { closest } from "../text/suggest.ts";
import {
  choicesOf,
  type CommandSpec,
  kebab,
  optionFlags,
  type OptionKind,
  type OptionSpec,
  type OptionValue,
  type ParsedInput,
  placeholderOf,
  takesValue,
} from "./spec.ts";

/** A parse that asked for help instead. */
export const HELP = Symbol("help");

interface Flag {
  key: string;
  spec: OptionSpec;
}

function _flags(spec: CommandSpec): { long: Map<string, Flag>; short: Map<string, Flag> } {
  const long = new Map<string, Flag>();
  const short = new Map<string, Flag>();
  for (const [key, option] of Object.entries(spec.options)) {
    long.set(kebab(key), { key, spec: option });
    if (option.short !== undefined) short.set(option.short, { key, spec: option });
  }
  return { long, short };
}

function _helpHint(spec: CommandSpec): string {
  return `Run \`${suggestCommand([spec.name, "--help"])}\` for its options.`;
}

/**
 * Parses `words` (what follows the command name).
 * @returns the input, or {@linkcode HELP} when `-h`/`--help` was given.
 * @throws {UsageError} on an unknown option, a missing value or argument, or a value not among the choices.
 */
export function parseCommand(spec: CommandSpec, words: readonly string[]): ParsedInput | typeof HELP {
  const { long, short } = _flags(spec);
  const options: Record<string, OptionValue> = {};
  for (const [key, option] of Object.entries(spec.options)) {
    options[key] = option.repeatable
      ? []
      : option.default === undefined
      ? undefined
      : readValue(key, option.kind, option.default);
  }
  const args: string[] = [];
  const given = new Set<string>();
  const texts = new Map<string, string>(); // each single-value option's text, as given
  const set = (flag: Flag, value: string | boolean) => {
    const { key, spec: option } = flag;
    if (typeof value === "string" && !option.repeatable) {
      // `-e gh -e stripe` would silently keep the last: say so instead (the same value twice is harmless).
      const before = texts.get(key);
      if (before !== undefined && before !== value) {
        throw new UsageError(
          `${_flag(key)} was given twice, as "${before}" and as "${value}": it takes one value. ` +
            `Give it once.`,
        );
      }
      texts.set(key, value);
    }
    if (value !== false) given.add(key);
    const read = typeof value === "string" ? readValue(key, option.kind, value) : value;
    if (option.repeatable) (options[key] as (string | number | Date)[]).push(read as string | number | Date);
    else options[key] = read;
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      args.push(...words.slice(i + 1));
      break;
    }
    if (word === "-h" || word === "--help") return HELP;
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = word.slice(2, eq === -1 ? undefined : eq);
      const flag = long.get(name);
      if (flag === undefined && name.startsWith("no-")) {
        const positive = long.get(name.slice(3));
        if (positive?.spec.negatable) {
          set(positive, false);
          continue;
        }
      }
      if (flag === undefined) {
        // `export --har`: a choice of another option given as an option of its own.
        const owner = [...long.entries()].find(([k, f]) =>
          !f.spec.hidden && k.length > 1 && choicesOf(f.spec)?.includes(name)
        )?.[0];
        const near = owner === undefined
          ? closest(name, [...long.keys()].filter((k) => !long.get(k)!.spec.hidden))
          : `${owner} ${name}`;
        throw new UsageError(
          `unknown option '--${name}'${near === undefined ? "" : ` (did you mean --${near}?)`}. ${
            _helpHint(spec)
          }`,
        );
      }
      if (!takesValue(flag.spec)) {
        if (eq !== -1) {
          throw new UsageError(`option '--${name}' takes no value, got "${word.slice(eq + 1)}".`);
        }
        set(flag, true);
        continue;
      }
      const value = eq !== -1 ? word.slice(eq + 1) : words[++i];
      if (value === undefined) {
        throw new UsageError(
          `option '${optionFlags(flag.key, flag.spec)}' needs a value. ${_helpHint(spec)}`,
        );
      }
      set(flag, value);
      continue;
    }
    if (word.startsWith("-") && word.length > 1 && !/^-\d/.test(word)) {
      // -n3, -n 3, -fq
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        const flag = short.get(letter);
        if (flag === undefined) {
          throw new UsageError(`unknown option '-${letter}'. ${_helpHint(spec)}`);
        }
        if (!takesValue(flag.spec)) {
          set(flag, true);
          continue;
        }
        const rest = word.slice(j + 1);
        const value = rest !== "" ? rest : words[++i];
        if (value === undefined) {
          throw new UsageError(
            `option '${optionFlags(flag.key, flag.spec)}' needs a value. ${_helpHint(spec)}`,
          );
        }
        set(flag, value);
        break;
      }
      continue;
    }
    args.push(word);
  }
  _checkArguments(spec, args);
  for (const [key, option] of Object.entries(spec.options)) {
    if (option.required && options[key] === undefined) {
      throw new UsageError(
        `missing option '${optionFlags(key, option)}': ${option.description}. ${_helpHint(spec)}`,
      );
    }
  }
  checkRelations(spec, given);
  return { args, options };
}

const _flag = (key: string) => `--${kebab(key)}`;

function _expected(kind: OptionKind): string {
  switch (kind.type) {
    case "duration": {
      const bare = kind.bare === null
        ? " (with its unit)"
        : ` (a bare number is ${kind.bare === "s" ? "seconds" : "milliseconds"})`;
      return `a duration${kind.zero ? "" : " above 0"} like 30s, 500ms or 2m${bare}`;
    }
    case "time":
      return "a duration like 10m, 2h or 1d, or an ISO time like 2024-05-01T10:00:00Z";
    case "integer": {
      const range = kind.max !== undefined
        ? ` from ${kind.min} to ${kind.max}`
        : kind.min > 0
        ? ` of at least ${kind.min}`
        : "";
      return `a whole number${range}${kind.note === undefined ? "" : ` (${kind.note})`}`;
    }
    case "rate":
      return "a number of events per second above 0 like 10 or 2.5/s";
    case "choice":
      return `one of ${kind.values.join(", ")}`;
    case "host":
      return "an interface to bind, an address or a host name like 127.0.0.1, 0.0.0.0 or ::1 (no scheme or port)";
    default:
      return `a ${kind.placeholder}`;
  }
}

/**
 * `text` read as the value of the option `key` of `kind` (text without a kind).
 * @throws {UsageError} `--timeout must be a duration above 0 like 30s, ..., got "soon".`: the option, what
 * it expects, the value, and for a choice the nearest value.
 */
export function readValue(key: string, kind: OptionKind | undefined, text: string): string | number | Date {
  const bad = (hint = "") =>
    new UsageError(`${_flag(key)} must be ${_expected(kind!)}, got "${text}"${hint}.`);
  switch (kind?.type) {
    case undefined:
    case "text":
      return text;
    case "path":
      // An empty path names no file (an unset variable expanded to nothing); it would read or write the folder.
      if (text === "") throw bad(": give a file path");
      return text;
    case "duration": {
      const ms = kind.bare === null && isBareNumber(text) ? undefined : parseDuration(text, kind.bare ?? "s");
      if (ms === undefined || (ms <= 0 && !kind.zero)) throw bad();
      return ms;
    }
    case "time": {
      const at = parseWhen(text);
      if (at === undefined) throw bad();
      return at;
    }
    case "integer": {
      const n = Number(text);
      if (!/^\d+$/.test(text) || n < kind.min || (kind.max !== undefined && n > kind.max)) throw bad();
      return n;
    }
    case "rate": {
      const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*s)?\s*$/.exec(text);
      const n = m === null ? NaN : Number(m[1]);
      if (!(n > 0)) throw bad();
      return n;
    }
    case "url": {
      const problem = httpUrlProblem(text, _flag(key));
      if (problem !== undefined) throw new UsageError(problem);
      return text;
    }
    case "host": {
      // An address or a name: no scheme, port, path or space (`http://0.0.0.0`, `:8787`, `host:80` are typos).
      const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
      if (!/^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|(?:[0-9A-Fa-f]*:){2,}[0-9A-Fa-f.]*)$/.test(bare)) {
        throw bad();
      }
      return bare;
    }
    case "choice": {
      const loose = text.trim().toLowerCase().replace(/[\s_]+/g, "-");
      const found = kind.values.find((v) => v === text || v === loose);
      if (found !== undefined) return found;
      const near = closest(loose, kind.values);
      throw bad(near === undefined ? "" : ` (did you mean ${near}?)`);
    }
  }
}

/**
 * Checks the declared relations between the options `given` on the command line: each one's `requires` are
 * given too, and none of its `conflicts` is.
 * @throws {UsageError} `--seed goes with --out-of-order: give both, or leave --seed out.`, or
 * `--count and --follow cannot be given together: choose one.`
 */
export function checkRelations(spec: CommandSpec, given: ReadonlySet<string>): void {
  const declared = (key: string) => {
    const option = spec.options[key];
    if (option === undefined) {
      throw new Error(`${spec.name}: a relation names the undeclared option "${key}"`);
    }
    return option;
  };
  for (const [key, option] of Object.entries(spec.options)) {
    for (const other of option.conflicts ?? []) {
      declared(other);
      if (given.has(key) && given.has(other)) {
        throw new UsageError(`${_flag(key)} and ${_flag(other)} cannot be given together: choose one.`);
      }
    }
  }
  for (const [key, option] of Object.entries(spec.options)) {
    for (const other of option.requires ?? []) {
      const shown = placeholderOf(declared(other));
      if (given.has(key) && !given.has(other)) {
        throw new UsageError(
          `${_flag(key)} goes with ${_flag(other)}${shown === undefined ? "" : ` <${shown}>`}: ` +
            `give both, or leave ${_flag(key)} out.`,
        );
      }
    }
  }
}

function _checkArguments(spec: CommandSpec, args: string[]): void {
  const declared = spec.arguments ?? [];
  const variadic = declared.at(-1)?.variadic === true;
  declared.forEach((arg, i) => {
    const value = args[i];
    if (value === undefined) {
      if (arg.required) {
        throw new UsageError(`missing argument <${arg.name}> (${arg.description}). ${_helpHint(spec)}`);
      }
      return;
    }
    const values = arg.variadic ? args.slice(i) : [value];
    for (const v of values) {
      if (arg.choices !== undefined && !arg.choices.includes(v)) {
        throw new UsageError(`<${arg.name}> cannot be "${v}": use one of ${arg.choices.join(", ")}.`);
      }
    }
  });
  if (!variadic && args.length > declared.length) {
    const extra = args.slice(declared.length).map((a) => `"${a}"`).join(", ");
    throw new UsageError(
      `too many arguments for '${spec.name}': ${extra} ` +
        `(it takes ${declared.length === 0 ? "none" : declared.map((a) => `<${a.name}>`).join(" ")}). ` +
        _helpHint(spec),
    );
  }
}
