/**
 * The `inspect` section of an event's deliveries: every attempt with the
 * app's answer (status, headers, pretty body), and the `logs` cell (last
 * status and attempts). Payload text is sanitized. Pure.
 * @module
 */
import type { DeliveryRecord } from "../event/delivery.ts";
import { answerNote, senderGot, sentPhrase } from "../send/answer_note.ts";
import type { EventDelivery, TargetOutcome } from "../send/delivery_state.ts";
import type { ForwardMark } from "../event/record.ts";
import type { Colors } from "./colors.ts";
import { formatBytes, formatLocalTime } from "../text/format.ts";
import { prettyJson } from "./json_pretty.ts";
import { safeBlock, safeLine } from "../text/sanitize.ts";
import { attemptsPhrase } from "../text/attempts.ts";

/** Said of an event whose endpoint forwards but whose targets' rules all passed it by. */
export const NO_RULE_MATCHED = "not forwarded (no rule matched)";

/**
 * The `logs` count of a target's attempts: `""` for one of dev's own, ` (3 tries)`, and the sends by hand
 * apart (` (1 try, 1 replay)`).
 */
function triesNote(t: TargetOutcome): string {
  return t.attempts > 1 || t.replays !== undefined ? ` (${attemptsPhrase(t, "tries")})` : "";
}

/**
 * ` (sender got 503)`: a relay whose sender got hooktap's answer, not the app's status shown before it;
 * ` (sender left)`: one whose sender hung up before it.
 */
function sentNote(t: TargetOutcome): string {
  return t.sent === undefined ? "" : t.sent === "left" ? " (sender left)" : ` (sender got ${t.sent})`;
}

/**
 * The `logs` cell of an event with several targets or rules: each target's
 * outcome (`issues → 200, push → pending`), or {@linkcode NO_RULE_MATCHED}.
 */
export function targetsCell(targets: readonly TargetOutcome[]): string {
  if (targets.length === 0) return NO_RULE_MATCHED;
  return targets.map((t) => {
    const status = t.outcome === "pending"
      ? t.waiting ? "waiting for the app" : "pending"
      : `${t.status ?? "err"}${sentNote(t)}${triesNote(t)}${
        t.outcome === "retrying" ? t.waiting ? " … waiting for the app" : " …" : ""
      }`;
    return `${safeLine(t.name)} → ${status}`;
  }).join(", ");
}

/**
 * The `inspect` lines naming each forward target's outcome (and, after them, the sends to other URLs,
 * which are deliveries of their own), or `""` for an event that was neither forwarded nor sent.
 */
export function renderTargets(
  targets: readonly TargetOutcome[] | undefined,
  colors: Colors,
  others: readonly TargetOutcome[] = [],
): string {
  const line = (t: TargetOutcome) => {
    const paint = t.outcome === "delivered"
      ? colors.green
      : t.outcome === "failed"
      ? colors.red
      : colors.yellow;
    const answer = t.attempts === 0
      ? ""
      : ` (${t.status ?? "no answer"}${sentPhrase(t.sent)}, ${attemptsPhrase(t, "attempts")})`;
    const waits = t.waiting ? colors.dim(" (nothing listens: it waits for the app, no attempt spent)") : "";
    return `  ${safeLine(t.name)}: ${paint(t.outcome)}${answer}${waits}`;
  };
  let text = "";
  if (targets !== undefined && targets.length === 0) {
    text = `\n${colors.bold("Forwarding")}: ${colors.dim(NO_RULE_MATCHED)}\n`;
  } else if (targets !== undefined) {
    text = `\n${colors.bold("Forwarding")}\n${targets.map(line).join("\n")}\n`;
  }
  if (others.length > 0) {
    // Sends to no forward target of the event: `replay --to URL`, or a replay of an event no rule took.
    const note = colors.dim("(not a forward target of this event: not its forward state)");
    text += `\n${colors.bold("Sent elsewhere")} ${note}\n${others.map(line).join("\n")}\n`;
  }
  return text;
}

/**
 * The `logs` cell: `→ 200`, `→ 500 (3 tries)`, `→ err (2 tries)`, `→ 500 (2 tries) …` (retrying),
 * `→ 200 (1 try, 1 replay)` (delivered, then replayed by hand), `→ pending`, `→ waiting for the app`
 * (nothing listened, no attempt spent), `-` when not forwarded; with several targets or rules,
 * {@linkcode targetsCell}. The count says attempts, not repeats of the status (`×3` read as "200 three
 * times"), and replays apart from dev's tries. Only the forward targets count: a send to another URL
 * (`replay --to`) is its own delivery (src/send/delivery_state.ts).
 */
export function deliveryCell(delivery: EventDelivery, mark: ForwardMark | undefined): string {
  if (mark === undefined) return "-";
  if (mark.targets !== undefined) return targetsCell(delivery.targets);
  const t = delivery.targets[0];
  if (t === undefined) return "→ pending";
  if (t.outcome === "pending") return t.waiting ? "→ waiting for the app" : "→ pending";
  return `→ ${t.status ?? "err"}${sentNote(t)}${triesNote(t)}${
    t.outcome === "retrying" ? t.waiting ? " … waiting for the app" : " …" : ""
  }`;
}

function body(record: DeliveryRecord, colors: Colors): string[] {
  const raw = answerNote(record);
  const note = raw === undefined ? undefined : safeLine(raw);
  if (record.body === undefined || record.body === "") {
    return [colors.dim(`    (empty body)${note === undefined ? "" : ` ${note}`}`)];
  }
  if (record.bodyEncoding === "base64") {
    const size = record.decodedFrom === undefined ? `, ${formatBytes(record.bodySize ?? 0)}` : "";
    return [colors.dim(`    (binary${size})${note === undefined ? "" : ` ${note}`}`)];
  }
  let text = record.body;
  try {
    JSON.parse(text);
    text = prettyJson(text, colors, safeLine);
  } catch {
    text = safeBlock(text);
  }
  const lines = text.split("\n").map((l) => `    ${l}`);
  if (note !== undefined) lines.push(colors.dim(`    ${record.truncated ? "… " : ""}${note}`));
  return lines;
}

/** The "Deliveries" section of `inspect`, or `""` when there are none. */
export function renderDeliveries(records: readonly DeliveryRecord[], colors: Colors): string {
  if (records.length === 0) return "";
  // A blank line first, as before every section after the body (the event's view ends right under it).
  const out = ["", colors.bold(`Deliveries (${records.length})`)];
  for (const r of records) {
    // A try nothing listened to is no attempt (it costs none): the event waits for the app.
    const status = r.refused
      ? "nothing listened"
      : r.status === undefined
      ? "no answer"
      : `${r.status} ${safeLine(r.statusText ?? "")}`.trim();
    const paint = r.outcome === "delivered"
      ? colors.green
      : r.outcome === "retrying"
      ? colors.yellow
      : colors.red;
    const outcome = r.refused ? "no attempt spent, waits for the app" : r.outcome;
    out.push(
      `  ${r.refused ? "-" : `#${r.attempt}`} ${paint(status)}  ${safeLine(r.method)} ${safeLine(r.url)}  ` +
        colors.dim(
          `${r.source}, ${formatLocalTime(new Date(r.startedAt))}, ${r.durationMs} ms, ${outcome}` +
            (r.source === "relay" ? `, ${senderGot(r)}` : ""),
        ) +
        (r.resigned ? colors.dim(", re-signed") : ""),
    );
    if (r.error !== undefined) out.push(`    ${colors.red(safeLine(r.error))}`);
    for (const [name, value] of r.headers ?? []) {
      out.push(`    ${colors.dim(`${safeLine(name)}:`)} ${safeLine(value)}`);
    }
    if (r.status !== undefined) out.push(...body(r, colors));
  }
  return out.join("\n") + "\n";
}
