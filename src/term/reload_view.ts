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
import { formatBytes } from "../text/format.ts";
import { safeLine } from "../text/sanitize.ts";
import { suggestCommand } from "../text/command_line.ts";
import { movedTarget } from "./delivery_line.ts";

/** `--config FILE` of the run (its words), none for the default config. */
const configWords = (config: string | undefined): string[] =>
  config === undefined ? [] : ["--config", config];

/** The command that starts this dev again: `dev`, with the run's `--config` (`config`). */
function restartCommand(config: string | undefined): string {
  return safeLine(suggestCommand(["dev", ...configWords(config)]));
}

const show = (e: Endpoint) => `${e.methods.join(",")} ${safeLine(e.path)} (${safeLine(e.name)})`;

/** One changed endpoint: what differs, never "X -> X" (a change of its body limit alone names the limit). */
function changed(before: Endpoint, after: Endpoint): string {
  const limit = before.maxBodySize === after.maxBodySize
    ? ""
    : `maxBodySize ${formatBytes(before.maxBodySize)} -> ${formatBytes(after.maxBodySize)}`;
  if (show(before) === show(after)) return `${show(after)}: ${limit}`;
  return `${show(before)} -> ${show(after)}${limit === "" ? "" : `, ${limit}`}`;
}

/** Where a running `dev` listens, for the lines about a port change. */
export interface ListeningPort {
  /** The port bound (the real one when 0 was asked). */
  port: number;
  /** `--port` chose it: the config's port does not apply to this run, nor to a restart with `--port`. */
  fromFlag: boolean;
  /** The run's `--config`, as given: a restart command must start the same config. */
  config?: string | undefined;
}

/** What else a reload changed: endpoints' other settings (applied), and settings read only at start. */
export interface OtherChanges {
  /**
   * Endpoints whose signing or custom response changed (their names: never a value, a secret may be one),
   * and those whose response function, its text unchanged, was loaded anew (`reloaded`: a module it calls may
   * have changed).
   */
  settings: readonly { endpoint: Endpoint; fields: readonly string[]; reloaded?: boolean }[];
  /** Top-level fields read only when dev starts (`retention`, `ui`, `server`, `hub`) that changed. */
  atStart: readonly string[];
}

/** The lines after a reload that applied. */
export function reloadedText(
  changes: ConfigChanges,
  colors: Colors,
  listening: ListeningPort,
  other: OtherChanges = { settings: [], atStart: [] },
): string {
  const parts = [
    ...changes.added.map((e) => `+ ${show(e)}`),
    ...changes.removed.map((e) => `- ${show(e)}`),
    ...changes.changed.map(({ before, after }) => `~ ${changed(before, after)}`),
    ...other.settings.map(({ endpoint, fields, reloaded }) =>
      `~ ${show(endpoint)}: ${
        [
          ...(fields.length === 0 ? [] : [`${fields.join(", ")} changed`]),
          ...(reloaded ? ["response function reloaded"] : []),
        ].join("; ")
      }`
    ),
  ];
  if (changes.maxBodySize) {
    parts.push(`~ maxBodySize ${changes.maxBodySize.from} -> ${changes.maxBodySize.to}`);
  }
  const lines = [
    colors.green(`Config reloaded${parts.length === 0 ? ": no endpoint changed." : ":"}`),
    ...parts.map((p) => `  ${p}`),
  ];
  if (changes.port) lines.push(portChangeLine(changes.port, listening, colors));
  if (other.atStart.length > 0) {
    lines.push(colors.yellow(
      `  ${other.atStart.join(", ")} changed: not applied, read only when hooktap dev starts; restart it ` +
        `(Ctrl-C, then ${restartCommand(listening.config)}) to use ${
          other.atStart.length === 1 ? "it" : "them"
        }.`,
    ));
  }
  return lines.join("\n") + "\n";
}

/** What a change of the config's port does: never a restart when `--port` chose the port, never a port not bound. */
function portChangeLine(
  port: { from: number; to: number },
  listening: ListeningPort,
  colors: Colors,
): string {
  const head = `  port changed ${port.from} -> ${port.to}: `;
  if (listening.fromFlag) {
    return colors.dim(
      `${head}no change for this run, which listens on ${listening.port} as --port asked ` +
        `(so does a restart with the same --port; the config's port applies without --port).`,
    );
  }
  if (port.to === listening.port) return colors.dim(`${head}already listening on ${listening.port}.`);
  const where = port.to === 0 ? "on any free port" : `on ${port.to}`;
  return colors.yellow(
    `${head}still listening on ${listening.port}; restart hooktap dev (Ctrl-C, then ${
      restartCommand(listening.config)
    }) to listen ${where}.`,
  );
}

/** What an edit did to the endpoints' `forward` (by endpoint name). */
export interface ForwardEdit {
  /** Endpoints whose targets the edit added, changed or removed. */
  changed: readonly string[];
  /** Endpoints that forward in the edited config. */
  forwarding: readonly string[];
}

/**
 * The line saying that an edit of `forward` does not apply (`""` when it does, or there was none): a dev that
 * started without forwarding cannot start it on a reload, and `--forward-to` replaces the config's targets.
 */
export function forwardReloadText(
  edit: ForwardEdit,
  session: { running: boolean; forwardTo: boolean; config?: string | undefined },
  colors: Colors,
): string {
  if (edit.changed.length === 0) return "";
  const names = edit.changed.map((n) => `"${safeLine(n)}"`).join(", ");
  if (session.forwardTo) {
    return colors.yellow(
      `  forward of ${names} changed in the config: not applied, --forward-to replaces the config's targets ` +
        `for this run; restart hooktap dev without --forward-to to use them (Ctrl-C, then ${
          restartCommand(session.config)
        }).\n`,
    );
  }
  if (session.running || edit.forwarding.length === 0) return "";
  return colors.yellow(
    `  forward of ${names} added: not applied, this hooktap dev started without forwarding and a reload cannot ` +
      `start it. Restart hooktap dev (Ctrl-C, then ${
        restartCommand(session.config)
      }) to forward; events received ` +
      `until then are stored, not forwarded (${
        safeLine(suggestCommand(["replay", "ID", "--to", "URL", ...configWords(session.config)]))
      } sends one).\n`,
  );
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

/**
 * The lines saying how a reload changed the forward targets ("" when it did not). `nowOf`: an endpoint's
 * targets in the config now: when a removed target moved ({@linkcode movedTarget}: its URL was edited), the
 * command for its kept events sends them to the new URL.
 */
export function targetChangesText(
  changes: TargetChanges,
  colors: Colors,
  config?: string,
  nowOf: (endpoint: string) => readonly { name: string; to: string }[] = () => [],
): string {
  const lines = [
    ...changes.added.map((t) => `  + forward target ${safeLine(t)}`),
    ...changes.changed.map((t) => `  ~ forward target ${safeLine(t)} (new events follow its new settings)`),
    ...changes.removed.map(({ endpoint, target, kept }) =>
      `  - forward target ${safeLine(endpoint)} ${safeLine(target)}` +
      (kept === 0 ? "" : colors.yellow(
        `: ${kept} queued event${kept === 1 ? " was" : "s were"} kept undelivered; ` +
          `${
            safeLine(
              suggestCommand([
                "replay",
                "--undelivered",
                "--endpoint",
                endpoint,
                "--target",
                target,
                "--to",
                movedTarget(target, nowOf(endpoint))?.to ?? "URL",
                ...configWords(config),
              ]),
            )
          } sends them`,
      ))
    ),
  ];
  return lines.length === 0 ? "" : `Forwarding reloaded:\n${lines.join("\n")}\n`;
}
