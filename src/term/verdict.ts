/**
 * How a signature verdict and its sender look in the terminal: a mark per
 * verdict (`✓` valid, `✗` invalid or expired, `?` no secret, `-` unsigned),
 * the `provider type` cell of `dev` and `logs`, and the "Signature" and
 * "Response" sections of `inspect`. Payload-derived text is sanitized. Pure.
 * @module
 */
import type { CapturedEvent, StoredResponse, VerdictStatus } from "../event/record.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import { senderGot } from "../send/answer_note.ts";
import { PROVIDER_METAS } from "../providers/metas.gen.ts";
import { verdictReason } from "../providers/verdict_reason.ts";
import type { Colors } from "./colors.ts";
import { safeBlock, safeLine } from "../text/sanitize.ts";

/** The mark of each verdict. */
export const VERDICT_MARKS: Readonly<Record<VerdictStatus, string>> = {
  valid: "✓",
  invalid: "✗",
  expired: "✗",
  unsigned: "-",
  "no-secret": "?",
};

/** A verdict as people read it: `no-secret` is "no secret". */
export function verdictWord(status: VerdictStatus): string {
  return status === "no-secret" ? "no secret" : status;
}

/** `github push` (sanitized), or `""` for an unknown sender. */
export function senderText(provider: string | undefined, type: string | undefined): string {
  return safeLine([provider, type].filter((s) => s !== undefined && s !== "").join(" "));
}

/**
 * The `dev` cell: the mark, sender and type, the verdict in words unless
 * valid, and what was answered when it was not the plain 200.
 */
export function senderCell(
  o: { provider?: string; type?: string; verdict?: VerdictStatus; answered?: string },
): string {
  if (o.provider === undefined && o.verdict === undefined && o.answered === undefined) return "";
  const status = o.verdict ?? "unsigned";
  const sender = senderText(o.provider, o.type);
  const word = status === "valid" ? "" : `(${verdictWord(status)})`;
  const answered = o.answered === undefined ? "" : `[${o.answered}]`;
  return [VERDICT_MARKS[status], sender, word, answered].filter((s) => s !== "").join(" ");
}

/** Colours a cell by the mark it starts with. */
export function paintVerdict(colors: Colors): (text: string) => string {
  return (text) => {
    const mark = text.trimStart()[0];
    if (mark === "✓") return colors.green(text);
    if (mark === "✗") return colors.red(text);
    if (mark === "?") return colors.yellow(text);
    return colors.dim(text);
  };
}

function _aligned(pairs: [string, string][], colors: Colors): string[] {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `  ${colors.cyan(k.padEnd(width))}  ${v}`);
}

const EXPLAIN: Readonly<Record<VerdictStatus, string>> = {
  valid: "the signature matches: the request comes from the sender and its body is as signed",
  invalid: "the signature does not match",
  expired: "the signature matches, but its timestamp is outside the tolerance",
  unsigned: "the request carries no signature hooktap knows",
  "no-secret": "the request is signed, but the endpoint has no secret to check it with",
};

/** The "Signature" section of `inspect`, or `[]` when the sender is unknown and nothing was checked. */
export function signatureSection(event: CapturedEvent, colors: Colors): string[] {
  if (event.provider === undefined && event.verdict === undefined) return [];
  const v = event.verdict ?? { status: "unsigned" as const };
  const paint = paintVerdict(colors);
  const title = event.provider === undefined
    ? "unknown"
    : Object.values(PROVIDER_METAS).find((m) => m.name === event.provider)?.title ?? event.provider;
  const pairs: [string, string][] = [
    [
      "sender",
      `${safeLine(title)}${event.provider === undefined ? "" : colors.dim(` (${safeLine(event.provider)})`)}`,
    ],
  ];
  if (event.type !== undefined) pairs.push(["event", safeLine(event.type)]);
  pairs.push([
    "verdict",
    `${paint(`${VERDICT_MARKS[v.status]} ${verdictWord(v.status)}`)}${
      v.scheme ? colors.dim(` (${safeLine(v.scheme)})`) : ""
    }`,
  ]);
  pairs.push(["meaning", EXPLAIN[v.status]]);
  // A fault `hooktap trigger` sent on purpose says so (the advice checked at receipt would blame the secret).
  const why = event.verdict === undefined ? undefined : verdictReason(event);
  if (why !== undefined) pairs.push(["why", safeLine(why)]);
  return ["", colors.bold("Signature"), ..._aligned(pairs, colors)];
}

const SOURCES: Readonly<Record<StoredResponse["source"], string>> = {
  challenge: "the provider's URL challenge, answered by hooktap",
  custom: "the endpoint's `response`",
  enforce: "refused: the endpoint has `enforce: true` and the signature did not verify",
};

/**
 * The "Response" section of `inspect`: what hooktap answered, or, for a request relayed to the app (`relay`,
 * its relay attempt's record), that the app's answer went back (its status; the body under Deliveries).
 */
export function responseSection(event: CapturedEvent, colors: Colors, relay?: DeliveryRecord): string[] {
  const r = event.response;
  if (r === undefined && relay !== undefined) {
    const status = relay.status === undefined
      ? "no answer"
      : `${relay.status} ${safeLine(relay.statusText ?? "")}`;
    return [
      "",
      colors.bold("Response (relayed)"),
      ..._aligned(
        [["app", status.trim()], ["sender", `${senderGot(relay)} (the attempt under Deliveries)`]],
        colors,
      ),
    ];
  }
  if (r === undefined) {
    if (event.verdict === undefined && event.provider === undefined) return [];
    return ["", colors.bold("Response"), `  ${colors.dim('200 {"ok":true,...} (hooktap\'s plain answer)')}`];
  }
  const pairs: [string, string][] = [["status", String(r.status)], ["why", SOURCES[r.source]]];
  if (r.delayMs !== undefined) pairs.push(["delay", `${r.delayMs} ms`]);
  for (const [k, v] of r.headers ?? []) pairs.push(["header", `${safeLine(k)}: ${safeLine(v)}`]);
  const lines = ["", colors.bold(`Response (${r.source})`), ..._aligned(pairs, colors)];
  if (r.body !== undefined && r.body !== "") {
    const body = r.body.length > 2000 ? `${r.body.slice(0, 2000)}...` : r.body;
    lines.push(`  ${colors.cyan("body")}`, safeBlock(body).replace(/^/gm, "    "));
  }
  return lines;
}
