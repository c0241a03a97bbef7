/**
 * What `dev` prints per delivery attempt, in the spirit of Stripe's
 * `<-- [200] POST http://localhost:3000/… [evt_…] 23 ms`: on a non-2xx
 * answer the first lines of the app's body (sanitized), on no answer why,
 * and when a retry is due. With `--json`, the delivery record as one JSON
 * line (`"kind":"delivery"`). Also the app-down and app-back lines.
 * @module
 */
import { senderGot, senderStatus } from "../send/answer_note.ts";
import { type DeliveryRecord, RECORD_BODY_BYTES, targetNameOf } from "../event/delivery.ts";
import type { AppState } from "../send/forwarder.ts";
import type { CapturedEvent } from "../event/record.ts";
import type { GivenUp } from "../send/undelivered.ts";
import { signatureFault } from "../providers/verdict_reason.ts";
import { providerFacts } from "../providers/catalog.ts";
import { challengeNote, queuedAnswerNote } from "./challenge_note.ts";
import { formatBytes, formatClock } from "../text/format.ts";
import type { Output } from "./output.ts";
import { safeLine } from "../text/sanitize.ts";
import { invokedAs, shellQuote } from "../text/command_line.ts";

/** Lines of the app's body shown under a non-2xx answer. */
export const BODY_LINES = 6;
const LINE_CHARS = 160;

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** The line of an event no target's rule took. */
export function formatUnrouted(event: Pick<CapturedEvent, "id" | "receivedAt">, output: Output): string {
  const c = output.colors;
  return `${c.dim(formatClock(new Date(event.receivedAt)))} ${c.dim("<--")} ${c.cyan(`[${event.id}]`)} ` +
    `${c.dim("not forwarded (no rule matched)")}\n`;
}

/** The `--json` line of an event no target's rule took. */
export function unroutedJson(event: Pick<CapturedEvent, "id" | "endpoint">): string {
  return JSON.stringify({ kind: "not-forwarded", event: event.id, endpoint: event.endpoint, targets: [] }) +
    "\n";
}

/** Options of {@linkcode formatDelivery}. */
export interface DeliveryLineOptions {
  /** The target's attempts in all, shown as `attempt 2/5`. */
  attempts?: number;
  /**
   * A "gave up" hint needs `--resign` (the stored signature will be stale when it is run); it is added too
   * when this attempt had to be re-signed. @default false
   */
  resign?: boolean;
  /** How the user runs hooktap (`npx hooktap` through npx), the hint's first words. @default invokedAs() */
  runner?: string;
  /** Words the hint's command ends with (`--config FILE`). @default [] */
  more?: readonly string[];
  /**
   * The event, when known: one stored with an invalid signature is sent again as received (`--resign`
   * refuses it), and the "gave up" hint says why it was refused (a fault `hooktap trigger` made on purpose).
   */
  event?: Pick<CapturedEvent, "verdict" | "trigger" | "provider">;
}

/**
 * Whether the app's answer refuses the request's signature: a 401 or 403, or a 400 whose body says so (Stripe's
 * and Standard Webhooks' documented handlers answer `400 Webhook Error: No signatures found matching ...`).
 */
function refusedSignature(record: DeliveryRecord): boolean {
  if (record.status === 401 || record.status === 403) return true;
  return record.status === 400 && record.bodyEncoding === "utf8" &&
    /signature|hmac/i.test(record.body?.slice(0, 4096) ?? "");
}

/** The human lines of one attempt (ending in a newline). */
export function formatDelivery(
  record: DeliveryRecord,
  output: Output,
  options: DeliveryLineOptions = {},
): string {
  const { attempts, resign = false, runner = invokedAs(), more = [], event } = options;
  const c = output.colors;
  const status = record.status === undefined ? "---" : String(record.status);
  const ok = record.status !== undefined && record.status >= 200 && record.status < 300;
  const paint = ok ? c.green : record.status !== undefined && record.status < 500 ? c.yellow : c.red;
  const time = formatClock(new Date(record.startedAt));
  const parts = [
    c.dim(time),
    `<-- ${paint(`[${status}]`)}`,
    safeLine(record.method),
    safeLine(record.url),
    ...(record.target !== targetNameOf(record.url) ? [c.dim(`(${safeLine(record.target)})`)] : []),
    c.cyan(`[${record.event}]`),
    `${record.durationMs} ms`,
  ];
  if (record.source === "relay") {
    // The app's status is first on the line; the sender may have got hooktap's instead (a 503 over the budget).
    const got = record.senderLeft === true ||
      (record.status !== undefined && senderStatus(record) !== undefined);
    parts.push(got ? c.yellow(`(relayed; ${senderGot(record)})`) : c.dim("(relayed)"));
    // The sender waits only so long (Slack, Discord, Zoom: 3 s): a later answer reaches a sender that gave up.
    const facts = event?.provider === undefined ? undefined : providerFacts(event.provider);
    const within = facts?.answerWithinMs;
    if (within !== undefined && record.senderLeft !== true && record.durationMs > within) {
      parts.push(c.yellow(
        `— ${facts!.title} waits ${within / 1000} s for the answer: it would have given up and counted the ` +
          "delivery failed; answer first, then do the slow work",
      ));
    }
  }
  const queued = queuedAnswerNote(event, record);
  if (queued !== undefined) parts.push(c.yellow(safeLine(queued)));
  const challenge = challengeNote(event, record);
  if (challenge !== undefined) {
    parts.push(challenge.agrees ? c.dim(challenge.text) : c.yellow(safeLine(challenge.text)));
  }
  if (record.resumed) parts.push(c.yellow("(again after a restart: your app may have seen it)"));
  // Signed afresh by the forwarder (src/send/resign_stale.ts): the app did not get the sender's signature.
  if (record.resigned) parts.push(c.dim("(re-signed: older than the endpoint's tolerance)"));
  // Nothing listened: one phrase (why, what happens, and that a try nothing listened to is not an attempt).
  const waits = record.outcome === "retrying" && record.retryAt === undefined;
  if (record.refused) {
    parts.push(
      c.yellow(
        `— ${safeLine(record.error ?? "nothing listened")}${
          waits ? "; it waits for the app to listen" : ""
        } (no attempt spent)`,
      ),
    );
  } else if (record.source !== "relay" && (record.attempt > 1 || record.outcome !== "delivered")) {
    // A relay sends once ("(relayed)" says so): "attempt 1" would promise a second.
    parts.push(c.dim(`attempt ${record.attempt}${attempts ? `/${attempts}` : ""}`));
  }
  if (record.error !== undefined && !record.refused) parts.push(c.red(safeLine(record.error)));
  // The app refused an event whose signature checks with the endpoint's secret (or was signed afresh with it):
  // most often the app verifies with another secret.
  // A sender that signs the URL it called (Twilio): the stored signature never fits the app's URL, so the
  // "gave up" command re-signs (the hint says to).
  let signsUrl = false;
  if (refusedSignature(record) && event?.verdict?.status === "valid") {
    const facts = event.provider === undefined ? undefined : providerFacts(event.provider);
    signsUrl = facts?.signsUrl === true;
    parts.push(c.yellow(
      facts?.signsUrl
        ? `— ${facts.title} signs the URL it called, not your app's: check the signature against that URL ` +
          "(docs/forwarding.md), or replay with --resign to sign it for the app's URL;"
        : "— its signature checks with the endpoint's secret: does your app verify with the same one?",
    ));
  }
  if (record.outcome === "retrying" && record.retryAt !== undefined) {
    const wait = Math.max(0, Date.parse(record.retryAt) - Date.parse(record.startedAt) - record.durationMs);
    parts.push(
      c.yellow(
        record.retrySooner
          ? `retry in ${seconds(Math.round(wait))}, sooner if your app restarts`
          : `retry in ${seconds(Math.round(wait))}`,
      ),
    );
  } else if (waits && !record.refused) {
    // Nothing listens: no attempt is spent; it goes out as soon as the app listens again.
    parts.push(c.yellow("waits for the app to listen"));
  } else if (record.outcome === "failed" && record.source !== "relay") {
    const invalid = event?.verdict?.status === "invalid" && record.resigned !== true;
    const why = !invalid
      ? ""
      : signatureFault(event!) !== undefined
      ? " (its signature was made invalid on purpose by `trigger --bad-signature`: refused, as meant)"
      : " (its signature was invalid when hooktap received it)";
    parts.push(
      c.red(
        `gave up${why}: ${
          safeLine(
            undeliveredCommand(
              record.endpoint,
              record.target,
              !invalid && (resign || signsUrl || record.resigned === true),
              runner,
              more,
            ),
          )
        } sends it again${invalid ? " as received" : ""}`,
      ),
    );
  }
  let text = parts.join(" ") + "\n";
  const status3xx = record.status !== undefined && record.status >= 300 && record.status < 400;
  const location = status3xx ? record.headers?.find(([n]) => n.toLowerCase() === "location")?.[1] : undefined;
  if (location !== undefined) {
    // A redirect is an answer, not followed: where it points is what the user needs to see.
    const what = record.source === "relay" ? "passed on to the sender, not followed" : "not followed";
    text += `    ${c.dim("│")} Location: ${safeLine(location)} ${c.dim(`(${what})`)}\n`;
  }
  if (!ok && record.bodyEncoding === "base64" && record.body !== undefined && record.body !== "") {
    text += `    ${
      c.dim(`│ (a binary body, ${formatBytes(record.bodySize ?? 0)}: ${runner} inspect ${record.event})`)
    }\n`;
  }
  if (!ok && record.body !== undefined && record.body !== "" && record.bodyEncoding === "utf8") {
    const lines = record.body.split(/\r?\n/).filter((l) => l.trim() !== "");
    for (const line of lines.slice(0, BODY_LINES)) {
      const clipped = line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line;
      text += `    ${c.dim("│")} ${safeLine(clipped)}\n`;
    }
    if (record.truncated) {
      // The record keeps the answer's start only: say so, rather than promise the whole of it.
      const size = formatBytes(record.bodySize ?? 0);
      text += `    ${
        c.dim(
          `│ … (${runner} inspect ${record.event} shows ${
            // Decoding stops at 64 KiB, or sooner where the bytes stop decoding (damaged, or cut).
            record.decodedFrom === undefined
              ? `its first ${formatBytes(RECORD_BODY_BYTES)}`
              : `its decoded start (up to ${formatBytes(RECORD_BODY_BYTES)})`} of the ${size} answer)`,
        )
      }\n`;
    } else if (lines.length > BODY_LINES) {
      text += `    ${c.dim(`│ … (${runner} inspect ${record.event} shows the whole answer)`)}\n`;
    }
  }
  return text;
}

/**
 * The command that sends an endpoint's given-up events to one target again, after `runner` (how the user
 * runs hooktap: `npx hooktap` through npx); `more`: words added at the end (`--verdict valid`,
 * `--config FILE`), each quoted as needed.
 */
export function undeliveredCommand(
  endpoint: string,
  target: string,
  resign?: boolean,
  runner = invokedAs(),
  more: readonly string[] = [],
): string {
  const quote = (s: string) => (/^[\w.:/@%+=,-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);
  return `${runner} replay --undelivered --endpoint ${quote(endpoint)} --target ${quote(target)}` +
    (resign ? " --resign" : "") + more.map((w) => ` ${quote(w)}`).join("");
}

/**
 * The target an endpoint's events go to now in place of `old`, when the app moved: `old` was an unnamed
 * target (named after its URL, `localhost:3000/webhooks/stripe`) and is gone from the config, which forwards
 * the endpoint to one unnamed target now (the URL edited: another port). `undefined` otherwise: a target
 * removed beside others, or a named one, was another destination, and its events do not belong elsewhere.
 */
export function movedTarget<T extends { name: string; to: string }>(
  old: string,
  now: readonly T[],
): T | undefined {
  const only = now.length === 1 ? now[0]! : undefined;
  if (only === undefined || only.name === old || only.name !== targetNameOf(only.to)) return undefined;
  // A name made from a URL has its port or its path; a name given in the config is a plain word.
  return /[:/]/.test(old) && targetNameOf(`http://${old}`) === old ? only : undefined;
}

/**
 * The line under a note of `n` events kept for `target`, no longer a forward target of `endpoint`, when the
 * app moved to `to` ({@linkcode movedTarget}): the note's command with that `--to` sends them there.
 */
export function movedNote(target: string, endpoint: string, to: string, n: number): string {
  const url = safeLine(to);
  const given = safeLine(shellQuote(to)); // pasted into the command as it stands: `&` and `?` quoted
  return `  (${safeLine(target)} is no longer a forward target of endpoint ${
    safeLine(endpoint)
  }, which forwards ` +
    `to ${url} now: with --to ${given} the command sends ${n === 1 ? "it" : "them"} there.)\n`;
}

/** Options of {@linkcode givenUpNote}. */
export interface GivenUpNoteOptions {
  /** Whether re-sending needs `--resign` (the stored signature is stale by then). @default false */
  resign?: boolean;
  /** How the user runs hooktap. @default invokedAs() */
  runner?: string;
  /** The config file `dev` was started with (`--config`): the commands name it. */
  config?: string;
  /**
   * The config `dev` runs with, when the endpoint forwards nowhere in it (another config's endpoint, or
   * one removed): the commands then assume the default config, and the note says so.
   */
  notIn?: string;
  /**
   * The endpoint's forward targets now: when the group's target moved ({@linkcode movedTarget}: its URL was
   * changed), a line says where the endpoint forwards now, and that `--to` sends them there.
   */
  now?: readonly { name: string; to: string }[];
}

/**
 * What `dev` says at start of events an earlier run gave up on, one target of one endpoint: a command
 * that sends them again and works for them. Events stored with an invalid signature are told apart:
 * `--resign` refuses those, so their command sends them as received (or `--resign-invalid` signs them
 * anew), and the line says why they were refused (a fault `hooktap trigger` made on purpose, or a wrong
 * secret), rather than suggesting a command that would be refused again.
 */
export function givenUpNote(group: GivenUp, options: GivenUpNoteOptions = {}): string {
  const runner = options.runner ?? invokedAs();
  // The app moved (its target's URL was changed): the old URL may be where nothing listens now. The commands
  // still name where they were forwarded (an earlier `dev --forward-to`'s URL looks the same), and a line says
  // where the endpoint forwards now.
  const moved = movedTarget(group.target, options.now ?? []);
  const config = options.config === undefined ? [] : ["--config", options.config];
  const head = (n: number) =>
    `${n} ${n === 1 ? "event" : "events"} of endpoint ${safeLine(group.endpoint)} failed every delivery ` +
    `attempt to ${safeLine(group.target)} earlier`;
  const command = (resign: boolean, more: string[]) =>
    safeLine(undeliveredCommand(group.endpoint, group.target, resign, runner, [...more, ...config]));
  const invalid = group.invalid?.length ?? 0;
  const others = group.events.length - invalid;
  let text = "";
  if (others > 0) {
    // Beside events stored invalid (which --resign refuses), --verdict picks the others out when it can.
    const only = invalid > 0 && group.othersVerdict !== undefined ? ["--verdict", group.othersVerdict] : [];
    text += `${head(others)}: ${command(options.resign ?? false, only)} sends ${
      others === 1 ? "it" : "them"
    } again.\n`;
  }
  if (invalid > 0) {
    const them = invalid === 1 ? "it" : "them";
    const only = others > 0 ? ["--verdict", "invalid"] : [];
    const faults = group.faults ?? 0;
    const why = faults === invalid
      ? "made invalid on purpose by `trigger --bad-signature`"
      : faults > 0
      ? `${faults} made invalid on purpose by \`trigger --bad-signature\`, the others likely signed with ` +
        "another secret"
      : "signed with another secret than the endpoint's, or changed on the way";
    text += `${head(invalid)}: ${invalid === 1 ? "its signature was" : "their signatures were"} invalid ` +
      `when hooktap received ${them} (${why}), so an app that checks signatures is right to refuse ${them}. ` +
      `${command(false, only)} sends ${them} again as received; ${
        command(false, ["--resign-invalid", ...only])
      } ` +
      `signs ${them} anew (which a real sender never would).\n`;
  }
  if (moved !== undefined) text += movedNote(group.target, group.endpoint, moved.to, others + invalid);
  if (options.notIn !== undefined) {
    text += `  (endpoint ${safeLine(group.endpoint)} forwards nowhere in ${safeLine(options.notIn)}: these ` +
      `commands assume ${safeLine(options.config ?? "hooktap.config.ts")}, which they read for its secret; ` +
      `add --config FILE if another config has it.)\n`;
  }
  return text;
}

/** The JSON line of one attempt. */
export function deliveryJson(record: DeliveryRecord): string {
  return JSON.stringify({ kind: "delivery", ...record }) + "\n";
}

/**
 * The line said once when a target stops accepting connections, and once when an attempt to it gets an
 * answer again (stderr). Both are true of the forwarder: while nothing listens no attempt is spent and
 * hooktap checks the port every second; the waiting events go out, in order, once it listens.
 */
export function formatAppState(state: AppState, output: Output, runner = invokedAs()): string {
  const c = output.errColors;
  const host = safeLine(state.host);
  if (!state.up && state.relay) {
    return c.yellow(
      `nothing listens on ${host}: is your app running? The sender got a 502 saying so; the event is stored ` +
        `(${runner} replay ${state.event === undefined ? "ID" : safeLine(state.event)} sends it again to ` +
        `${host}, where it was relayed).\n`,
    );
  }
  if (!state.up) {
    return c.yellow(
      `nothing listens on ${host}: is your app running? Events wait (no attempt is spent) and go out ` +
        `in order once it listens; hooktap checks every second and says when it answers.\n`,
    );
  }
  const n = state.waiting ?? 0;
  // One event has no order; several keep theirs within each target, not across targets.
  const order = n === 1 ? "" : (state.targets ?? 1) > 1 ? ", in order for each target" : ", in order";
  return c.green(
    n > 0
      ? `${host} answers again; ${
        n === 1 ? "the event that waited goes" : `the ${n} events that waited go`
      } out now${order}.\n`
      : `${host} answers again.\n`,
  );
}
