/**
 * How `hooktap inspect` shows one event to a person: its facts, every
 * header aligned, and the body decoded by type (JSON pretty-printed, forms
 * as fields, text as is, binary as a hex preview). Every piece of payload
 * goes through `safeLine`/`safeBlock`: a hostile webhook cannot put control
 * sequences on the user's terminal. Pure.
 * @module
 */
import { type CapturedEvent, decodeBody, headerValue } from "../event/record.ts";
import type { Colors } from "./colors.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import { formatBytes, formatLocalTime } from "../text/format.ts";
import { prettyJson } from "./json_pretty.ts";
import { safeBlock, safeLine } from "../text/sanitize.ts";
import { suggestCommand } from "../text/command_line.ts";
import { responseSection, signatureSection } from "./verdict.ts";
import { headerText } from "../text/header_text.ts";

/** The kind of body, by content type and content. */
export type BodyKind = "empty" | "json" | "form" | "text" | "binary";

/** Decides how a body is shown. */
export function bodyKind(event: CapturedEvent): BodyKind {
  if (event.bodySize === 0) return "empty";
  if (event.bodyEncoding === "base64") return "binary";
  const type = (headerValue(event.headers, "content-type") ?? "").toLowerCase();
  if (/^application\/x-www-form-urlencoded\b/.test(type)) return "form";
  const looksJson = /[/+]json\b/.test(type) || /^\s*[[{]/.test(event.body);
  if (looksJson) {
    try {
      JSON.parse(event.body);
      return "json";
    } catch { /* shown as text */ }
  }
  return "text";
}

/** A time relative to `now`: `just now`, `5 min ago`, `3 h ago`, `2 days ago`. */
export function ago(then: Date, now: Date = new Date()): string {
  const s = Math.round((now.getTime() - then.getTime()) / 1000);
  if (s < 0) return "in the future";
  if (s < 10) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  const d = Math.floor(s / 86400);
  return `${d} day${d === 1 ? "" : "s"} ago`;
}

/** Up to `max` bytes as `offset  hex  ascii` lines, 16 bytes each. */
export function hexPreview(bytes: Uint8Array, max = 64): string {
  const lines: string[] = [];
  for (let off = 0; off < Math.min(bytes.length, max); off += 16) {
    const row = bytes.subarray(off, Math.min(off + 16, bytes.length, max));
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${off.toString(16).padStart(8, "0")}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join("\n");
}

function _aligned(pairs: readonly [string, string][], colors: Colors): string[] {
  const width = Math.min(32, Math.max(0, ...pairs.map(([k]) => safeLine(k).length)));
  return pairs.map(([k, v]) => `  ${colors.cyan(safeLine(k).padEnd(width))}  ${safeLine(v)}`);
}

function _body(event: CapturedEvent, kind: BodyKind, colors: Colors): string[] {
  const type = headerValue(event.headers, "content-type") ?? "no content type";
  switch (kind) {
    case "empty":
      return [colors.dim("(empty body)")];
    case "json":
      return [prettyJson(event.body, colors, safeLine)];
    case "form": {
      const fields = [...new URLSearchParams(event.body)];
      return fields.length === 0 ? [colors.dim("(no fields)")] : _aligned(fields, colors);
    }
    case "text":
      return [safeBlock(event.body)];
    case "binary": {
      const bytes = decodeBody(event);
      const more = bytes.length > 64 ? colors.dim(`\n... ${formatBytes(bytes.length - 64)} more`) : "";
      return [
        colors.dim(`${formatBytes(bytes.length)} of binary data (${safeLine(type)}), first bytes:`),
        hexPreview(bytes) + more,
        colors.dim(
          `Write the exact bytes with: ${suggestCommand(["inspect", event.id, "--body"])} > body.bin`,
        ),
      ];
    }
    default: {
      const never: never = kind;
      return [String(never)];
    }
  }
}

const TITLES: Record<BodyKind, string> = {
  empty: "Body",
  json: "Body (JSON)",
  form: "Body (form fields)",
  text: "Body (text)",
  binary: "Body (binary)",
};

/** What `hooktap trigger` told dev about this delivery. */
export function triggerText(mark: NonNullable<CapturedEvent["trigger"]>): string {
  const fault = mark.fault === undefined
    ? ""
    : `, fault: ${mark.fault}${mark.attempt > 0 ? ` #${mark.attempt}` : ""}`;
  return safeLine(`sent by hooktap trigger (${mark.event}${fault})`);
}

/**
 * The "Response" section. For an event fetched from a hub, what dev answered went to the hub: the sender got
 * it only when it waited for dev's answer (dev connected as it sent, answering in time); otherwise the hub's
 * own 200. The record does not say which, so the section says both.
 */
function _response(event: CapturedEvent, colors: Colors, relay?: DeliveryRecord): string[] {
  const lines = responseSection(event, colors, relay);
  if (event.hub === undefined || lines.length < 2) return lines;
  const source = event.response === undefined ? "" : `${event.response.source}; `;
  lines[1] = colors.bold(`Response (${source}dev's answer to the hub)`);
  lines.push(
    ..._aligned([[
      "sender got",
      `the hub's 200 {"ok":true,"hub":${event.hub.seq}}, or this answer if it waited for it ` +
      "(dev connected when it sent, answering within the hub's --answer-timeout)",
    ]], colors),
  );
  return lines;
}

/**
 * The whole `inspect` view of `event`, ending with a newline; `relay` is its relay attempt's record when the
 * request was relayed to the app (the sender got the app's answer, not hooktap's).
 */
export function renderEvent(
  event: CapturedEvent,
  colors: Colors,
  now: Date = new Date(),
  relay?: DeliveryRecord,
): string {
  const received = new Date(event.receivedAt);
  const target = event.query === "" ? event.path : `${event.path}?${event.query}`;
  const type = headerValue(event.headers, "content-type");
  const kind = bodyKind(event);
  const facts: [string, string][] = [
    ["endpoint", event.endpoint],
    ["received", `${formatLocalTime(received)} (${ago(received, now)}, ${event.receivedAt})`],
    // Fetched from a hub: where and when the sender's request arrived (its signature is judged by that).
    ...(event.hub === undefined ? [] : [[
      "via hub",
      `${
        formatLocalTime(new Date(event.hub.receivedAt))
      } (${event.hub.receivedAt}), channel ${event.hub.channel} event ${event.hub.seq}`,
    ] as [string, string]]),
    ["request", `${event.method} ${target}`],
    ["from", event.remoteAddr || "unknown"],
    ...(event.params === undefined ? [] : [[
      "params",
      Object.entries(event.params).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" "),
    ] as [string, string]]),
    ["body", `${formatBytes(event.bodySize)}${type === undefined ? "" : `, ${type}`}`],
    ...(event.trigger === undefined ? [] : [["trigger", triggerText(event.trigger)] as [string, string]]),
  ];
  return [
    colors.bold(event.id),
    ..._aligned(facts, colors),
    ...signatureSection(event, colors),
    ..._response(event, colors, relay),
    "",
    colors.bold(`Headers (${event.headers.length})`),
    ..._aligned(event.headers.map(([k, v]) => [k, headerText(v)]), colors),
    "",
    colors.bold(TITLES[kind]),
    ..._body(event, kind, colors),
    "",
  ].join("\n");
}
