/**
 * What `hooktap dev` prints: the start banner (stderr) and one line per
 * request (stdout), or JSON Lines with `--json`. Request lines are gathered
 * and written once per turn of the event loop, so a burst of requests costs
 * one write to the terminal, not one each.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import type { RequestOutcome } from "../receiver/handler.ts";
import { formatBytes, formatClock } from "./format.ts";
import type { Output } from "./output.ts";
import { safeLine } from "./sanitize.ts";

/** What the banner shows. */
export interface BannerInfo {
  hostname: string;
  port: number;
  endpoints: readonly Endpoint[];
  eventsFile: string;
  configFile: string | null;
  repairedBytes: number;
}

function baseUrl(hostname: string, port: number): string {
  const host = hostname === "127.0.0.1" || hostname === "0.0.0.0" || hostname === "::"
    ? "localhost"
    : hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The start banner, for stderr. */
export function banner(info: BannerInfo, output: Output): string {
  const c = output.errColors;
  const base = baseUrl(info.hostname, info.port);
  const width = Math.max(...info.endpoints.map((e) => e.methods.join(",").length));
  const lines = [
    `${c.bold("hooktap dev")} listening on ${c.cyan(base)} ${c.dim(`(bound to ${info.hostname})`)}`,
    ...info.endpoints.map((e) =>
      `  ${c.green(e.methods.join(",").padEnd(width))} ${base}${e.path}  ${c.dim(`(${e.name})`)}`
    ),
    `Config: ${
      info.configFile ?? "built-in starter config (no hooktap.config.ts; `hooktap init` writes one)"
    }`,
    `Events: ${info.eventsFile}`,
    `Tunnel: in another terminal run ${c.bold(`ngrok http ${info.port}`)} or ${
      c.bold(`cloudflared tunnel --url http://localhost:${info.port}`)
    },`,
    `        then give the sender <tunnel URL>${info.endpoints[0]?.path ?? "/webhook"}`,
    c.dim("Press Ctrl-C to stop."),
    "",
  ];
  if (info.repairedBytes > 0) {
    lines.unshift(
      c.yellow(
        `warning: removed a torn last line (${info.repairedBytes} bytes) from ${info.eventsFile}: ` +
          `an interrupted write that was never acknowledged.`,
      ),
    );
  }
  return lines.join("\n");
}

/** Turns request outcomes into printed lines, batched per event-loop turn. */
export function createActivityLog(
  output: Output,
  options: { json: boolean; endpoints: readonly Endpoint[] },
): (outcome: RequestOutcome) => void {
  const c = output.colors;
  const known = options.endpoints.map((e) => `${e.methods.join(",")} ${e.path}`).join(", ");
  let buffer: string[] = [];
  let stdoutGone = false;
  const flush = () => {
    const text = buffer.join("");
    buffer = [];
    if (stdoutGone) return;
    try {
      output.out(text);
    } catch (error) {
      // Whoever read stdout went away (`hooktap dev --json | jq` and jq quit). Printing is a
      // courtesy; receiving is the job: an uncaught write error here would kill the receiver.
      stdoutGone = true;
      try {
        output.err(
          `warning: cannot print request lines any more (${
            error instanceof Error ? error.name : "stdout error"
          }: stdout was closed); still receiving and storing events. Press Ctrl-C to stop.\n`,
        );
      } catch { /* stderr is gone too: keep receiving silently */ }
    }
  };
  const human = (o: RequestOutcome): string => {
    const status = o.status < 300
      ? c.green(String(o.status))
      : o.status < 500
      ? c.yellow(String(o.status))
      : c.red(String(o.status));
    const head = `${c.dim(formatClock(o.time))}  ${o.method.padEnd(6)} ${safeLine(o.path)}  ${status}`;
    if (o.status === 200) return `${head}  ${o.endpoint}  ${formatBytes(o.size)}  ${c.cyan(o.id ?? "")}\n`;
    if (o.status === 404) return `${head}  ${c.dim(`no endpoint has this path (configured: ${known})`)}\n`;
    if (o.status === 405) return `${head}  ${c.dim(`this path accepts ${o.allow?.join(", ")}`)}\n`;
    return `${head}  ${o.endpoint ?? ""}  ${c.yellow(`not stored: ${o.reason ?? "error"}`)}\n`;
  };
  const json = (o: RequestOutcome): string =>
    JSON.stringify({
      time: o.time.toISOString(),
      method: o.method,
      path: o.path,
      status: o.status,
      endpoint: o.endpoint ?? null,
      size: o.size,
      id: o.id ?? null,
      ...(o.reason !== undefined ? { reason: o.reason } : {}),
    }) + "\n";
  const format = options.json ? json : human;
  return (outcome) => {
    if (buffer.length === 0) queueMicrotask(flush);
    buffer.push(format(outcome));
  };
}
