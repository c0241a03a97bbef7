/**
 * What `hooktap dev` prints when its config file changes: a short summary
 * of what changed, the problems of an edit that did not load, and what a
 * port change needs.
 * @module
 */
import type { ConfigChanges } from "../config/diff.ts";
import type { Endpoint } from "../config/types.ts";
import type { TargetChanges } from "../send/session.ts";
import { describeError } from "../errors.ts";
import type { Colors } from "./colors.ts";
import { safeLine } from "../text/sanitize.ts";
import { invokedAs, suggestCommand } from "../text/command_line.ts";

const show = (e: Endpoint) => `${e.methods.join(",")} ${safeLine(e.path)} (${safeLine(e.name)})`;

/** The lines after a reload that applied. */
export function reloadedText(changes: ConfigChanges, colors: Colors): string {
  const parts = [
    ...changes.added.map((e) => `+ ${show(e)}`),
    ...changes.removed.map((e) => `- ${show(e)}`),
    ...changes.changed.map(({ before, after }) => `~ ${show(before)} -> ${show(after)}`),
  ];
  if (changes.maxBodySize) {
    parts.push(`~ maxBodySize ${changes.maxBodySize.from} -> ${changes.maxBodySize.to}`);
  }
  const lines = [
    colors.green(`Config reloaded${parts.length === 0 ? ": no endpoint changed." : ":"}`),
    ...parts.map((p) => `  ${p}`),
  ];
  if (changes.port) {
    lines.push(colors.yellow(
      `  port changed ${changes.port.from} -> ${changes.port.to}: still listening on ${changes.port.from}; ` +
        `restart ${invokedAs()} dev (Ctrl-C, then ${
          suggestCommand(["dev"])
        }) to listen on ${changes.port.to}.`,
    ));
  }
  return lines.join("\n") + "\n";
}

/** The lines after an edit that did not load or validate. */
export function reloadFailedText(error: unknown, colors: Colors): string {
  const issues = (error as { issues?: readonly string[] }).issues ?? [];
  return [
    ...describeError(error).split("\n").map((l, i) =>
      i === 0 ? colors.red(`Config not reloaded: ${safeLine(l)}`) : safeLine(l)
    ),
    ...issues.map((i) => `  - ${safeLine(i)}`),
    colors.dim("  Still serving the previous config; save the file again once it is fixed."),
  ].join("\n") + "\n";
}

/** The lines saying how a reload changed the forward targets ("" when it did not). */
export function targetChangesText(changes: TargetChanges, colors: Colors): string {
  const lines = [
    ...changes.added.map((t) => `  + forward target ${safeLine(t)}`),
    ...changes.changed.map((t) => `  ~ forward target ${safeLine(t)} (new events follow its new settings)`),
    ...changes.removed.map(({ endpoint, target, kept }) =>
      `  - forward target ${safeLine(endpoint)} ${safeLine(target)}` +
      (kept === 0 ? "" : colors.yellow(
        `: ${kept} queued event${kept === 1 ? " was" : "s were"} kept undelivered; ` +
          `${
            safeLine(suggestCommand(["replay", "--undelivered", "--endpoint", endpoint, "--target", target]))
          } --to URL sends them`,
      ))
    ),
  ];
  return lines.length === 0 ? "" : `Forwarding reloaded:\n${lines.join("\n")}\n`;
}
