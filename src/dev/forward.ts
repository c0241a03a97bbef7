/**
 * `dev`'s forwarding wiring: `--forward-to`/`--forward-mode` checked as a
 * target, the callbacks that print delivery lines, and the start report
 * (targets, events the last run left undelivered).
 * @module
 */
import { checkForward, type ResolvedForward } from "../config/forward.ts";
import { UsageError } from "../errors.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import type { AppState, ForwarderOptions } from "../send/forwarder.ts";
import type { StalledWrite } from "../send/relay_answer.ts";
import type { ForwardingSession, RoutedTarget } from "../send/session.ts";
import type { Colors } from "../term/colors.ts";
import type { CapturedEvent } from "../event/record.ts";
import {
  deliveryJson,
  formatAppState,
  formatDelivery,
  givenUpNote,
  movedNote,
  movedTarget,
} from "../term/delivery_line.ts";
import { formatBytes, plural } from "../text/format.ts";
import type { Output } from "../term/output.ts";
import { safeLine } from "../text/sanitize.ts";
import { invokedAs, shellQuote, suggestCommand } from "../text/command_line.ts";

/**
 * The target `--forward-to` names (`--forward-events` its rule), or `undefined` without the flag.
 * @throws {UsageError} when the URL is not an http(s) URL, or `--forward-events` is given alone or empty.
 */
export function forwardFlag(
  to: string | undefined,
  mode: string | undefined,
  events?: string,
): ResolvedForward | undefined {
  if (to === undefined) {
    if (events !== undefined) {
      throw new UsageError(
        "--forward-events chooses the events --forward-to sends: give both " +
          `(${
            suggestCommand(["dev", "--forward-to", "http://localhost:3000/hook", "--forward-events", "push"])
          }), ` +
          "or put the rule in hooktap.config.ts (forward: [{ to, when: { type: [...] } }]).",
      );
    }
    if (mode !== undefined) {
      throw new UsageError(
        "--forward-mode sets how --forward-to sends: give both " +
          `(${
            suggestCommand(["dev", "--forward-to", "http://localhost:3000/hook", "--forward-mode", mode])
          }), ` +
          `or set the mode in hooktap.config.ts (forward: { to, mode: "${mode}" }).`,
      );
    }
    return undefined;
  }
  const types = events?.split(",").map((t) => t.trim()).filter((t) => t !== "");
  if (types !== undefined && types.length === 0) {
    throw new UsageError(`--forward-events must list event types like push,pull_request; got "${events}".`);
  }
  const issues: string[] = [];
  const resolved = checkForward(
    { to, mode: mode ?? "queue", ...(types ? { when: { type: types } } : {}) },
    "--forward-to",
    issues,
  );
  if (resolved === undefined) {
    throw new UsageError(
      issues.join("; ").replace("--forward-to.to", "--forward-to").replace(
        "--forward-to.when.type",
        "--forward-events",
      ),
    );
  }
  return resolved;
}

/** Callbacks printing each delivery (stdout) and app-down/back lines (stderr). */
export function forwardingCallbacks(
  out: Output,
  options: {
    json: boolean;
    quiet: boolean;
    /**
     * Whether a "gave up" hint needs `--resign` for this endpoint (see `resendNeedsResign`); `event`, when
     * known, refines it: an event stored `invalid` is never re-signed (replay refuses), so no `--resign`.
     */
    resignsOf?: (endpoint: string, event?: CapturedEvent) => boolean;
    /** How the user runs hooktap (`npx hooktap` through npx): the first words of every hint. */
    runner?: string;
    /** The config file given with `--config`: the commands suggested name it. */
    config?: string;
  },
): {
  onDelivery: (record: DeliveryRecord, event?: CapturedEvent) => void;
  onAppState: (s: AppState) => void;
  onSenderStalled: NonNullable<ForwarderOptions["onSenderStalled"]>;
  onError: (e: unknown) => void;
} {
  let stdoutGone = false;
  const print = (text: string) => {
    if (stdoutGone) return;
    try {
      out.out(text);
    } catch {
      stdoutGone = true; // the reader of stdout left; delivering goes on
    }
  };
  return {
    onDelivery: (record, event) => {
      if (options.quiet) return;
      print(
        options.json ? deliveryJson(record) : formatDelivery(record, out, {
          resign: options.resignsOf?.(record.endpoint, event) ?? false,
          ...(options.runner !== undefined ? { runner: options.runner } : {}),
          ...(options.config !== undefined ? { more: ["--config", options.config] } : {}),
          ...(event !== undefined ? { event } : {}),
        }),
      );
    },
    onAppState: (state) => out.err(formatAppState(state, out, options.runner)),
    onSenderStalled: (event, target, stalled) => out.err(stalledLine(event, target, stalled, out)),
    onError: (error) =>
      out.err(out.errColors.red(`error: ${error instanceof Error ? error.message : String(error)}\n`)),
  };
}

/**
 * Dev's line for a relayed answer its sender stopped reading: what was cut, after how long, and that its
 * memory is free again (a sender that reads never would otherwise hold its share of the 128 MiB for ever).
 */
function stalledLine(event: CapturedEvent, target: { to: string }, s: StalledWrite, out: Output): string {
  const seconds = s.afterMs % 1000 === 0 ? `${s.afterMs / 1000} s` : `${s.afterMs} ms`;
  return out.errColors.yellow(
    `[${event.id}] the sender stopped reading the relayed answer of ${safeLine(target.to)}: not read whole ` +
      `within ${seconds} (forward.timeout), hooktap closed its connection after handing over ` +
      `${formatBytes(s.handed)} of ${formatBytes(s.size)} (the sender got a cut body) and freed the ` +
      `answer's memory.\n`,
  );
}

/** What a target's rule takes, for the banner: ` (type push, pull_request)`. */
export function ruleText(when: ResolvedForward["when"]): string {
  if (when === undefined) return "";
  const parts = when.map((alternatives) =>
    alternatives.map((f) =>
      Object.entries(f).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(" & ") : v}`)
        .join("")
    ).join(" or ")
  );
  return ` when ${parts.join(", ")}`;
}

/**
 * The banner's lines of targets: one per target (mode, URL and, for a ruled one, name), naming every
 * endpoint that forwards to it (`every endpoint` when all do: `--forward-to`), in `endpoints`' order.
 */
function targetLines(forwarding: ForwardingSession, endpoints: readonly string[], c: Colors): string[] {
  const groups = new Map<string, { target: RoutedTarget; endpoints: string[]; named: boolean }>();
  for (const name of endpoints) {
    const list = forwarding.targetsOf(name);
    for (const target of list) {
      const key = `${target.mode} ${target.to}${target.ruled ? ` ${target.name}` : ""}`;
      let group = groups.get(key);
      if (group === undefined) groups.set(key, group = { target, endpoints: [], named: false });
      group.endpoints.push(name);
      group.named ||= target.ruled || list.length > 1;
    }
  }
  return [...groups.values()].map(({ target, endpoints: on, named }) => {
    const which = on.length > 1 && on.length === endpoints.length
      ? " every endpoint"
      : ` ${on.map((n) => `"${safeLine(n)}"`).join(", ")}`;
    return `Forwarding${which} (${target.mode}) to ${c.cyan(safeLine(target.to))}` +
      `${named ? ` as ${safeLine(target.name)}` : ""}${safeLine(ruleText(target.when))}\n`;
  });
}

/** Prints where events go and what the last run left; delivers those unless told not to. */
export function reportForwarding(
  out: Output,
  forwarding: ForwardingSession,
  options: {
    deliverPending: boolean;
    replaced?: number;
    runner?: string;
    /** The config file given with `--config`: the commands suggested name it. */
    config?: string;
    /** The endpoints that forward (the banner names them). */
    endpoints?: readonly string[];
  },
): void {
  const c = out.errColors;
  const runner = options.runner ?? invokedAs();
  const config = options.config === undefined ? "" : ` --config ${shellQuote(options.config)}`;
  if (options.replaced !== undefined && options.replaced > 0) {
    out.err(
      c.yellow(
        `--forward-to replaces the ${plural(options.replaced, "forward target")} of ${
          safeLine(options.config ?? "hooktap.config.ts")
        } for this run.\n`,
      ),
    );
  }
  for (const line of targetLines(forwarding, options.endpoints ?? [], c)) out.err(line);
  const { pending } = forwarding.leftOver;
  if (pending > 0) {
    if (options.deliverPending) {
      const n = forwarding.resume(); // deliveries: an event missed by two targets counts twice
      if (n > 0) {
        const order = n === 1
          ? ""
          : (forwarding.resumeTargets ?? 1) > 1
          ? ", in the order received for each target"
          : ", in the order received";
        out.err(
          c.yellow(
            `${n === 1 ? "1 delivery of an event" : `${n} deliveries of events`} stored but not delivered ` +
              `when hooktap last stopped ${n === 1 ? "goes" : "go"} out now${order}.\n`,
          ),
        );
      }
    } else {
      forwarding.skipPending();
      out.err(
        c.yellow(
          `${
            plural(pending, "event")
          } stored but not delivered when hooktap last stopped (--skip-pending): ` +
            `${runner} replay --undelivered${config} sends them.\n`,
        ),
      );
    }
  }
  for (const [key, n] of forwarding.orphaned) {
    const [endpoint, target] = key.split(" ") as [string, string];
    // The URL they waited for when known (an earlier `--forward-to`): the command works as printed.
    const to = forwarding.orphanedTo.get(key);
    // The app moved (the target's URL was edited, or that run's URL was the app's old one): said below.
    const moved = movedTarget(target, forwarding.targetsOf(endpoint));
    out.err(
      c.yellow(
        `${plural(n, "event")} of endpoint ${safeLine(endpoint)} waited for target ${safeLine(target)}, ` +
          `which this run does not forward to; ${n === 1 ? "it is" : "they are"} kept: ` +
          `${runner} replay --undelivered --endpoint ${safeLine(endpoint)} --target ${
            safeLine(target)
          } --to ${to === undefined ? "URL" : safeLine(shellQuote(to))}${config} sends ${
            n === 1 ? "it" : "them"
          }.\n` + (moved === undefined ? "" : movedNote(target, endpoint, moved.to, n)),
      ),
    );
  }
  for (const group of forwarding.leftOver.givenUp) {
    // Not for a group with an event whose signature arrived expired, unsigned or unchecked: none is renewed.
    const resign = (forwarding.resignsOf?.(group.endpoint) ?? false) && group.unrenewed === undefined;
    // An endpoint this config does not forward (another config's, or removed): the commands assume the
    // default config, and the note says so.
    const known = forwarding.targetsOf(group.endpoint).length > 0;
    const note = givenUpNote(group, {
      resign,
      now: forwarding.targetsOf(group.endpoint),
      runner,
      ...(options.config && known ? { config: options.config } : {}),
      ...(known ? {} : { notIn: options.config ?? "hooktap.config.ts" }),
    });
    out.err(c.yellow(note));
  }
}

/**
 * The words of `dev`'s forwarding flags as given (`--forward-to URL`, `--forward-mode relay`, `--forward-events`),
 * shell-quoted: a run given them marked its events for that target, and only a run given them again resumes
 * those events (a plain `dev` keeps them and says so).
 */
export function forwardFlagWords(
  to: string | undefined,
  mode?: string | undefined,
  events?: string | undefined,
): string[] {
  if (to === undefined) return [];
  return [
    "--forward-to",
    shellQuote(to),
    ...(mode !== undefined && mode !== "queue" ? ["--forward-mode", shellQuote(mode)] : []),
    ...(events !== undefined ? ["--forward-events", shellQuote(events)] : []),
  ];
}

/**
 * Said when `dev` stops with deliveries not settled: those cut off in flight (sent, or being sent, to the app
 * with no answer yet when their grace ran out: the next `dev` sends them again, so the app may see them twice),
 * and those still waiting for the app (never sent this time; the next `dev` sends them). `""` when none.
 * Read after the forwarder stopped (in-flight ones had their grace). `forward`: the run's forwarding flags
 * ({@linkcode forwardFlagWords}), which the next `dev` needs to resume them.
 */
export function waitingNote(
  out: Output,
  forwarding: ForwardingSession | undefined,
  runner = invokedAs(),
  config?: string,
  forward: readonly string[] = [],
): string {
  const n = forwarding?.forwarder.pending ?? 0;
  if (n === 0) return "";
  const with_ = config === undefined ? "" : ` --config ${shellQuote(config)}`;
  const next = `${runner} dev${with_}${forward.map((w) => ` ${w}`).join("")}`;
  const cut = Math.min(n, forwarding?.forwarder.inFlight ?? 0);
  const waiting = n - cut;
  const lines: string[] = [];
  if (cut > 0) {
    const it = cut === 1 ? "it" : "them";
    lines.push(
      `${cut} ${cut === 1 ? "delivery was" : "deliveries were"} sent to your app and not answered ` +
        `before dev stopped (no longer awaited): the next ${next} sends ${it} again, so your app may see ` +
        `${it} twice.\n`,
    );
  }
  if (waiting > 0) {
    const order = waiting === 1
      ? ""
      : (forwarding?.forwarder.pendingTargets ?? 1) > 1
      ? " in order for each target"
      : " in order";
    const they = waiting === 1 ? "it" : "them";
    lines.push(
      `${waiting} ${waiting === 1 ? "delivery was" : "deliveries were"} still waiting for your app: ` +
        `${waiting === 1 ? "it is" : "they are"} kept, and the next ${next} sends ${they}${order} ` +
        `(or, once your app listens, ${runner} replay --undelivered${with_} sends ${they}, with any event ` +
        `that gave up earlier).\n`,
    );
  }
  return out.errColors.yellow(lines.join(""));
}
