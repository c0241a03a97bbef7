/**
 * Reads a command's words against its declaration: flags (`-n 3`, `-n3`,
 * `--limit 3`, `--limit=3`, `-fq`, `--no-ui`), arguments in any order around
 * them, `--` to end options. Every mistake is a {@linkcode UsageError} that
 * names the problem and the fix. Pure.
 * @module
 */
import { UsageError } from "../errors.ts";
import { closest } from "../text/suggest.ts";
import { type CommandSpec, kebab, optionFlags, type OptionSpec, type ParsedInput } from "./spec.ts";

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
  return `Run \`hooktap ${spec.name} --help\` for its options.`;
}

/**
 * Parses `words` (what follows the command name).
 * @returns the input, or {@linkcode HELP} when `-h`/`--help` was given.
 * @throws {UsageError} on an unknown option, a missing value or argument, or a value not among the choices.
 */
export function parseCommand(spec: CommandSpec, words: readonly string[]): ParsedInput | typeof HELP {
  const { long, short } = _flags(spec);
  const options: Record<string, string | boolean | string[] | undefined> = {};
  for (const [key, option] of Object.entries(spec.options)) {
    options[key] = option.repeatable ? [] : option.default;
  }
  const args: string[] = [];
  const set = (flag: Flag, value: string | boolean) => {
    const { key, spec: option } = flag;
    if (typeof value === "string" && option.choices !== undefined && !option.choices.includes(value)) {
      throw new UsageError(
        `${optionFlags(key, option)} cannot be "${value}": use one of ${option.choices.join(", ")}.`,
      );
    }
    if (option.repeatable) (options[key] as string[]).push(String(value));
    else options[key] = value;
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
        const near = closest(name, [...long.keys()].filter((k) => !long.get(k)!.spec.hidden));
        throw new UsageError(
          `unknown option '--${name}'${near === undefined ? "" : ` (did you mean --${near}?)`}. ${
            _helpHint(spec)
          }`,
        );
      }
      if (flag.spec.value === undefined) {
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
        if (flag.spec.value === undefined) {
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
  return { args, options };
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
