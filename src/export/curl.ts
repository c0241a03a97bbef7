/**
 * `--format curl`: one POSIX shell command per event that sends the same
 * request again with curl: the method, every stored header in order (minus
 * those of the original connection, as `hooktap replay` drops them), and the
 * exact body bytes. Every word is single-quoted, so nothing in a header or
 * body (`$(...)`, backticks, quotes) is ever run by the shell.
 *
 * The body: UTF-8 text is given inline (`--data-binary 'text'`); anything
 * else (binary bytes, NUL, control characters, text starting with `@`, more
 * than 64 KiB: one argument holds at most 128 KiB on Linux) is
 * written with `printf` octal escapes and piped in (`printf '\377...' |
 * curl --data-binary @-`), so each command is one self-contained piece of
 * text a teammate can paste, and safe to print on a terminal. Headers curl
 * would add on its own and the sender did not send (User-Agent, Accept,
 * Content-Type, Expect) are switched off with `-H 'Name:'`. A header value's
 * bytes beyond ASCII are sent as stored (see {@linkcode headerWord}).
 * @module
 */
import { type CapturedEvent, decodeBody } from "../event/record.ts";
import { isHopHeader } from "../send/target.ts";
import { replayUrl } from "../send/to_url.ts";
import type { ExportFormat } from "./format.ts";
import { originalUrl } from "./_url.ts";
import { headerBytes, headerText } from "../text/header_text.ts";

/** `text` as one POSIX shell word: single quotes, with `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Bytes as a printf format that prints exactly them: printable ASCII as is, the rest as octal escapes. */
export function printfFormat(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) {
    if (b === 0x25) out += "%%";
    else if (b === 0x5c) out += "\\\\";
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += "\\" + b.toString(8).padStart(3, "0");
  }
  return out;
}

// Text that is safe inline: no control characters (but tab, newline), no C1 or bidi controls.
// deno-lint-ignore no-control-regex
const INLINE_UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;
const CURL_ADDS = ["user-agent", "accept", "content-type", "expect"];
/**
 * The longest body given inline, in UTF-8 bytes: Linux takes at most 128 KiB in one argument
 * (MAX_ARG_STRLEN), so a larger body goes through `printf`, a shell builtin without that limit.
 */
export const MAX_INLINE_BODY = 64 * 1024;

/**
 * The shell word of one `--header`: the stored bytes exactly. A header's bytes are stored one per character;
 * the script is UTF-8, so a value whose bytes are UTF-8 is written decoded, and any other byte beyond ASCII
 * (or a control or bidi character) through `printf` octal escapes: `"$(printf 'X-Name: caf\351')"`.
 */
export function headerWord(name: string, value: string): string {
  // curl drops `Name:` (it means "remove"); `Name;` sends it empty.
  const text = value === "" ? `${name};` : `${name}: ${value}`;
  if (!/[^\x20-\x7e\t]/.test(text)) return shellQuote(text);
  const decoded = headerText(text);
  if (decoded !== text && !INLINE_UNSAFE.test(decoded)) return shellQuote(decoded);
  return `"$(printf ${shellQuote(printfFormat(headerBytes(text) ?? new TextEncoder().encode(text)))})"`;
}

/** The curl command that sends `event` again (to `to`, or its original URL). */
export function curlCommand(event: CapturedEvent, to?: string): string {
  const url = to === undefined ? originalUrl(event) : replayUrl(event, to).href;
  const method = event.method.toUpperCase();
  // curl sends a GET's body as any other (a fetch cannot): only HEAD goes without one (`--head`).
  const bodyless = method === "HEAD";
  const words = ["curl", "--globoff", "--no-progress-meter"];
  words.push(method === "HEAD" ? "--head" : `--request ${shellQuote(method)}`, shellQuote(url));
  const sent = new Set<string>();
  for (const [name, value] of event.headers) {
    if (isHopHeader(name) || name.toLowerCase() === "content-length") continue;
    sent.add(name.toLowerCase());
    words.push(`--header ${headerWord(name, value)}`);
  }
  for (const name of CURL_ADDS) {
    if (!sent.has(name)) words.push(`--header ${shellQuote(`${name}:`)}`);
  }
  let pipe = "";
  if (!bodyless && event.bodySize > 0) {
    const inline = event.bodyEncoding === "utf8" && !event.body.startsWith("@") &&
      event.bodySize <= MAX_INLINE_BODY && !INLINE_UNSAFE.test(event.body);
    if (inline) words.push(`--data-binary ${shellQuote(event.body)}`);
    else {
      pipe = `printf ${shellQuote(printfFormat(decodeBody(event)))} | `;
      words.push("--data-binary @-");
    }
  }
  const dropped = bodyless && event.bodySize > 0
    ? `# Its stored ${event.bodySize}-byte body is not sent: a HEAD request carries none.\n`
    : "";
  return `# ${event.id} (${event.endpoint}, ${event.receivedAt})\n${dropped}${pipe}${
    words.join(" \\\n  ")
  }\n`;
}

/** curl commands. */
export const CURL: ExportFormat = {
  name: "curl",
  description: "curl commands that send the exact requests again (POSIX sh quoting)",
  sendsTo: true,
  create: (options) => ({
    head: () => "#!/bin/sh\n",
    event: (event) => curlCommand(event, options.to),
  }),
};
