/**
 * The help text of the program and of each command, laid out as commander
 * laid it out (usage, description, arguments, options, commands, then the
 * command's own text), wrapped to the terminal. Pure.
 * @module
 */
import { choicesOf, type CommandSpec, optionFlags, type OptionSpec } from "./spec.ts";

/** Greedy word wrap of `text` to `width` columns; lines after the first start with `indent` spaces. */
export function wrap(text: string, width: number, indent = 0): string {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ")) {
      const limit = width - (lines.length === 0 && line === "" ? 0 : indent);
      if (line !== "" && line.length + 1 + word.length > limit) {
        lines.push(line);
        line = word;
      } else line = line === "" ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines.map((l, i) => (i === 0 ? l : " ".repeat(indent) + l)).join("\n");
}

function _table(rows: [string, string][], pad: number, width: number): string {
  return rows.map(([term, text]) => {
    const left = `  ${term.padEnd(pad)}  `;
    return left + wrap(text, Math.max(width - left.length, 20), 0).split("\n").join(
      "\n" + " ".repeat(left.length),
    );
  }).join("\n");
}

function _optionText(option: OptionSpec): string {
  const extra: string[] = [];
  const choices = choicesOf(option);
  if (choices !== undefined) extra.push(`choices: ${choices.map((c) => `"${c}"`).join(", ")}`);
  if (option.default !== undefined) extra.push(`default: "${option.default}"`);
  return extra.length === 0 ? option.description : `${option.description} (${extra.join(", ")})`;
}

/** What the usage line and the command list show for a command: `replay [options] <event-id>`. */
export function commandTerm(spec: CommandSpec): string {
  const args = (spec.arguments ?? []).map((a) => {
    const name = `${a.name}${a.variadic ? "..." : ""}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  const hasOptions = Object.values(spec.options).some((o) => !o.hidden);
  return [spec.name, ...(hasOptions ? ["[options]"] : []), ...args].join(" ");
}

/** The flags as a user types them: a negatable option (on by default) shows its `--no-` form. */
function _flagsText(key: string, option: OptionSpec): string {
  const flags = optionFlags(key, option);
  return option.negatable ? flags.replace(/--(?=[^-\s][^\s]*$)/, "--no-") : flags;
}

/**
 * `text` with each command it shows (the usage line, the examples and quick start: lines that start with
 * `hooktap `, after their indent) run as the user runs hooktap (`runner`: `npx hooktap` through npx).
 */
function _asRun(text: string, runner: string): string {
  return runner === "hooktap"
    ? text
    : text.replace(/^(Usage: |[ \t]+)hooktap(?= )/gm, (_, lead: string) => `${lead}${runner}`);
}

/** The help of one command; its usage line and examples after `runner`, how the user runs hooktap. */
export function commandHelp(spec: CommandSpec, width: number, runner = "hooktap"): string {
  const options: [string, string][] = Object.entries(spec.options)
    .filter(([, o]) => !o.hidden)
    .map(([key, o]) => [_flagsText(key, o), _optionText(o)]);
  options.push(["-h, --help", "display help for command"]);
  const args: [string, string][] = (spec.arguments ?? []).map((a) => [
    a.name,
    a.choices === undefined
      ? a.description
      : `${a.description} (choices: ${a.choices.map((c) => `"${c}"`).join(", ")})`,
  ]);
  const pad = Math.max(...[...options, ...args].map(([term]) => term.length));
  // Only the usage line and the examples are commands: the tables are prose, whose wrapped lines may start
  // with the product's name ("... exposes\n    hooktap to your network").
  const parts = [_asRun(`Usage: hooktap ${commandTerm(spec)}`, runner), "", wrap(spec.description, width)];
  if (args.length > 0) parts.push("", "Arguments:", _table(args, pad, width));
  parts.push("", "Options:", _table(options, pad, width));
  return parts.join("\n") + "\n" + _asRun(spec.after ?? "", runner) + "\n";
}

/** The program's help: its options and the visible commands; its commands after `runner`. */
export function programHelp(
  commands: readonly CommandSpec[],
  info: { description: string; after: string },
  width: number,
  runner = "hooktap",
): string {
  const visible = commands.filter((c) => !c.hidden);
  const rows: [string, string][] = visible.map((c) => [commandTerm(c), c.description]);
  rows.push(["help [command]", "display help for command"]);
  const options: [string, string][] = [["-V, --version", "print hooktap's version"], [
    "-h, --help",
    "show help for a command",
  ]];
  const pad = Math.max(...[...rows, ...options].map(([term]) => term.length));
  return [
    _asRun("Usage: hooktap [options] [command]", runner),
    "",
    wrap(info.description, width),
    "",
    "Options:",
    _table(options, pad, width),
    "",
    "Commands:",
    _table(rows, pad, width),
  ].join("\n") + "\n" + _asRun(info.after, runner) + "\n";
}
