/**
 * The CLI's messages in a tool's words. The send, trigger and lookup modules
 * speak to a person at a terminal: they name options (`--set-new`, `-H`,
 * `--resign`, `--timeout`) and commands (`npx hooktap logs`). A tool has
 * inputs instead (`set_new`, `headers`, `resign`, `timeout_seconds`) and its
 * sibling tools (search_events, list_triggers, get_event), so each message a
 * tool returns is reworded: an option becomes the input of the same meaning
 * when the tool has one (else it is left as it is), and a suggested command
 * becomes the tool that does the same. Only messages are reworded, never
 * payload text.
 * @module
 */
import type { z } from "zod";

/** A tool's inputs by name: `true` for a boolean (written `name: true`). */
export type InputWords = ReadonlyMap<string, boolean>;

/** The inputs of a zod shape, for {@linkcode reword}. */
export function inputWords(shape: Record<string, z.ZodType>): InputWords {
  const words = new Map<string, boolean>();
  for (const [name, schema] of Object.entries(shape)) {
    words.set(name, schema.safeParse(true).success && !schema.safeParse("x").success);
  }
  return words;
}

/** CLI options whose input is not their name in snake_case. */
const ALIASES: Readonly<Record<string, string>> = {
  "-H": "headers",
  "--header": "headers",
  "-X": "method",
  "-X/--method": "method",
  "--timeout": "timeout_seconds",
  "--has-header": "has_header",
  "--filter-method": "filter_method",
};

/** An option (with the backticks around it, if any); a lookbehind keeps `a-b--c` and `x-H` whole. */
const OPTION = /(?<![\w-])`?(-X\/--method|-[HX]|--[a-z][a-z0-9-]*)`?(?![\w-])/g;

/** A suggested command line in backticks: `npx hooktap logs ...`, `hooktap trigger --list github`. */
const COMMAND = /`[^`\n]*?\bhooktap (logs|inspect|trigger --list)\b([^`\n]*)`/g;

/** `text` (a message for a person at a terminal) in the words of a tool whose inputs are `words`. */
export function reword(text: string, words: InputWords): string {
  return text
    .replace(COMMAND, (_all, command: string, rest: string) => {
      if (command === "logs") return "search_events";
      if (command === "inspect") return "get_event";
      const provider = /^\s+([A-Za-z0-9_-]+)\s*$/.exec(rest)?.[1];
      return provider === undefined ? "list_triggers" : `list_triggers {"provider": "${provider}"}`;
    })
    .replace(OPTION, (all, option: string) => {
      const name = ALIASES[option] ?? option.replace(/^--/, "").replaceAll("-", "_");
      const boolean = words.get(name);
      if (boolean === undefined) return all; // the tool has no such input: the CLI's word stays
      return boolean ? `\`${name}: true\`` : `\`${name}\``;
    });
}
