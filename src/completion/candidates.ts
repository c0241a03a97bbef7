/**
 * What TAB offers: given the words typed after `hooktap` (the last one being
 * completed), the candidates as `[value, description]` pairs: commands,
 * options, option values (endpoint names, methods, choices) and event ids
 * (whole, or their ULID part when that is what is being typed). The live
 * data is asked for only when needed. Pure apart from `data`.
 * @module
 */
import {
  type ArgumentSpec,
  choicesOf,
  type CommandSpec,
  kebab,
  type OptionSpec,
  takesValue,
} from "../cli/spec.ts";

/** A recent event, as completion shows it. */
export interface RecentEvent {
  id: string;
  /** Shown beside the id: `github POST /github 12:03:44`. */
  description: string;
}

/** Live candidates, loaded on demand. */
export interface CompletionData {
  /** Endpoint names (the config's and the store's). */
  endpoints(): Promise<readonly string[]>;
  /** Recent events, newest first. */
  recentEvents(): Promise<readonly RecentEvent[]>;
  /** What `trigger` can send: its providers, or one provider's events and sequences. */
  triggerable?(provider?: string): Promise<readonly Candidate[]>;
}

/** One candidate: the value and a description (may be empty). */
export type Candidate = [string, string];

const METHODS = ["POST", "GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
const ULID = /^[0-9A-HJKMNP-TV-Z]*$/i;

function _byPrefix(values: readonly Candidate[], prefix: string, ignoreCase = false): Candidate[] {
  const p = ignoreCase ? prefix.toUpperCase() : prefix;
  return values.filter(([v]) => (ignoreCase ? v.toUpperCase() : v).startsWith(p));
}

async function _values(
  kind: OptionSpec["complete"] | ArgumentSpec["complete"] | undefined,
  choices: readonly string[] | undefined,
  current: string,
  data: CompletionData,
  positional: readonly string[] = [],
): Promise<Candidate[]> {
  if (choices !== undefined) return _byPrefix(choices.map((c) => [c, ""]), current);
  // The providers a filter names are the ones trigger knows: one catalog (src/providers/catalog.ts).
  if (kind === "trigger-provider" || kind === "provider") {
    return _byPrefix([...(await data.triggerable?.()) ?? []], current);
  }
  if (kind === "trigger-event") {
    const provider = positional.at(-1);
    return provider === undefined ? [] : _byPrefix([...(await data.triggerable?.(provider)) ?? []], current);
  }
  if (kind === "endpoint") return _byPrefix((await data.endpoints()).map((e) => [e, "endpoint"]), current);
  if (kind === "method") return _byPrefix(METHODS.map((m) => [m, ""]), current.toUpperCase());
  if (kind !== "event-id") return [];
  const events = await data.recentEvents();
  if (current !== "" && !current.toLowerCase().startsWith("evt_") && ULID.test(current)) {
    // `replay 01M83J3BD<TAB>`: complete the ULID part, which is what was typed.
    return _byPrefix(events.map((e) => [e.id.slice(13), e.description]), current, true);
  }
  return _byPrefix(events.map((e) => [e.id, e.description]), current, true);
}

function _option(spec: CommandSpec, word: string): [string, OptionSpec] | undefined {
  if (word.startsWith("--")) {
    const name = word.slice(2).split("=")[0]!;
    return Object.entries(spec.options).find(([key]) => kebab(key) === name);
  }
  if (/^-[A-Za-z]$/.test(word)) return Object.entries(spec.options).find(([, o]) => o.short === word[1]);
  return undefined;
}

function _commands(commands: readonly CommandSpec[], current: string, withHelp: boolean): Candidate[] {
  const list: Candidate[] = commands.filter((c) => !c.hidden).map((c) => [c.name, c.description]);
  if (withHelp) list.push(["help", "show help for a command"]);
  return _byPrefix(list, current);
}

/** The positional words in `before` (after the command name), skipping options and their values. */
function _positional(spec: CommandSpec, before: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < before.length; i++) {
    const word = before[i]!;
    if (!word.startsWith("-")) {
      out.push(word);
      continue;
    }
    const found = _option(spec, word);
    if (found !== undefined && takesValue(found[1]) && !word.includes("=")) i++;
  }
  return out;
}

/** The candidates for the last of `words`. */
export async function candidates(
  commands: readonly CommandSpec[],
  words: readonly string[],
  data: CompletionData,
): Promise<Candidate[]> {
  const current = words.at(-1) ?? "";
  if (words.length <= 1) {
    if (!current.startsWith("-")) return _commands(commands, current, true);
    return _byPrefix([["--help", "show help"], ["--version", "print hooktap's version"]], current);
  }
  if (words[0] === "help") return words.length === 2 ? _commands(commands, current, false) : [];
  const spec = commands.find((c) => c.name === words[0]);
  if (spec === undefined) return [];
  const before = words.slice(1, -1);
  const previous = before.at(-1);
  const pending = previous === undefined || previous.includes("=") ? undefined : _option(spec, previous);
  if (pending !== undefined && takesValue(pending[1])) {
    return _values(pending[1].complete, choicesOf(pending[1]), current, data);
  }
  if (current.startsWith("--") && current.includes("=")) {
    const found = _option(spec, current);
    if (found === undefined || !takesValue(found[1])) return [];
    const head = current.slice(0, current.indexOf("=") + 1);
    const values = await _values(found[1].complete, choicesOf(found[1]), current.slice(head.length), data);
    return values.map(([v, d]) => [head + v, d]);
  }
  if (current.startsWith("-")) {
    const given = new Set(before.map((w) => _option(spec, w)?.[0]));
    const options: Candidate[] = Object.entries(spec.options)
      .filter(([key, o]) => !o.hidden && (o.repeatable || !given.has(key)))
      .map(([key, o]) => [`--${kebab(key)}`, o.description]);
    options.push(["--help", "show help"]);
    return _byPrefix(options, current);
  }
  const declared = spec.arguments ?? [];
  const positional = _positional(spec, before);
  const arg = declared[positional.length] ?? (declared.at(-1)?.variadic ? declared.at(-1) : undefined);
  if (arg === undefined) return [];
  const word = positional.at(-1);
  const after = word === undefined || arg.choicesAfter === undefined
    ? undefined
    : Object.hasOwn(arg.choicesAfter, word)
    ? arg.choicesAfter[word]!
    : [];
  return _values(arg.complete, after ?? arg.choices, current, data, positional);
}
