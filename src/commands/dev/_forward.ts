/**
 * `dev`'s forwarding wiring: `--forward-to`/`--forward-mode` checked as a
 * target, the callbacks that print delivery lines, and the start report
 * (targets, events the last run left undelivered).
 * @module
 */
import { checkForward, type ResolvedForward } from "../../config/forward.ts";
import { UsageError } from "../../errors.ts";
import type { DeliveryRecord } from "../../event/delivery.ts";
import type { ForwardingSession } from "../../send/session.ts";
import {
  deliveryJson,
  formatAppState,
  formatDelivery,
  undeliveredCommand,
} from "../../term/delivery_line.ts";
import { plural } from "../../term/format.ts";
import type { Output } from "../../term/output.ts";
import { safeLine } from "../../term/sanitize.ts";

/**
 * The target `--forward-to` names, or `undefined` without the flag.
 * @throws {UsageError} when the URL is not an http(s) URL.
 */
export function forwardFlag(to: string | undefined, mode: string | undefined): ResolvedForward | undefined {
  if (to === undefined) return undefined;
  const issues: string[] = [];
  const resolved = checkForward({ to, mode: mode ?? "queue" }, "--forward-to", issues);
  if (resolved === undefined) {
    throw new UsageError(issues.join("; ").replace("--forward-to.to", "--forward-to"));
  }
  return resolved;
}

/** Callbacks printing each delivery (stdout) and app-down/back lines (stderr). */
export function forwardingCallbacks(
  out: Output,
  options: { json: boolean; quiet: boolean },
): {
  onDelivery: (record: DeliveryRecord) => void;
  onAppState: (s: { host: string; up: boolean }) => void;
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
    onDelivery: (record) => {
      if (options.quiet) return;
      print(options.json ? deliveryJson(record) : formatDelivery(record, out));
    },
    onAppState: (state) => out.err(formatAppState(state, out)),
    onError: (error) =>
      out.err(out.errColors.red(`error: ${error instanceof Error ? error.message : String(error)}\n`)),
  };
}

/** Prints where events go and what the last run left; delivers those unless told not to. */
export function reportForwarding(
  out: Output,
  forwarding: ForwardingSession,
  options: { deliverPending: boolean; endpoints?: readonly string[] },
): void {
  const c = out.errColors;
  for (const target of forwarding.targets.values()) {
    // Name the endpoints whose events go there: two endpoints can forward to two paths of one app.
    const names = (options.endpoints ?? []).filter((name) => {
      const own = forwarding.targetOf(name);
      return own !== undefined && own.to === target.to && own.mode === target.mode;
    });
    const which = names.length === 0 ? "" : ` ${names.map((n) => `"${safeLine(n)}"`).join(", ")}`;
    out.err(`Forwarding${which} (${target.mode}) to ${c.cyan(safeLine(target.to))}\n`);
  }
  const { pending } = forwarding.leftOver;
  if (pending.length > 0) {
    if (options.deliverPending) {
      const n = forwarding.resume();
      out.err(
        c.yellow(`Delivering ${plural(n, "event")} stored but not delivered when hooktap last stopped.\n`),
      );
    } else {
      out.err(
        c.yellow(
          `${
            plural(pending.length, "event")
          } stored but not delivered when hooktap last stopped (--skip-pending): ` +
            `hooktap replay --undelivered sends them.\n`,
        ),
      );
    }
  }
  for (const group of forwarding.leftOver.givenUp) {
    const resign = forwarding.resignsOf?.(group.endpoint) ?? false;
    out.err(
      c.yellow(
        `${plural(group.events.length, "event")} of endpoint ${safeLine(group.endpoint)} failed every ` +
          `delivery attempt to ${safeLine(group.target)} earlier: ` +
          `${safeLine(undeliveredCommand(group.endpoint, group.target, resign))} sends them again.\n`,
      ),
    );
  }
}
