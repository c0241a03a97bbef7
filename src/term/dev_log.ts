/**
 * What `hooktap dev` prints: the start banner (stderr) and one line per
 * request (stdout), or JSON Lines with `--json`, followed by "not forwarded
 * (no rule matched)" for a stored event no forward rule took. Lines are gathered
 * and written once per turn of the event loop, so a burst of requests costs
 * one write to the terminal, not one each.
 * @module
 */
import { cutMarked } from "../text/cut.ts";
import type { Endpoint } from "../config/types.ts";
import type { RequestOutcome } from "../receiver/handler.ts";
import { formatBytes, formatClock } from "../text/format.ts";
import type { Output } from "./output.ts";
import { safeLine } from "../text/sanitize.ts";
import { type Column, layoutRows } from "./table.ts";
import { paintVerdict, senderCell } from "./verdict.ts";
import { padTo } from "./width.ts";
import { formatUnrouted, unroutedJson } from "./delivery_line.ts";
import { suggestCommand } from "../text/command_line.ts";

/** What the banner shows. */
export interface BannerInfo {
  hostname: string;
  port: number;
  endpoints: readonly Endpoint[];
  eventsFile: string;
  configFile: string | null;
  repairedBytes: number;
  /** The HTTP stack listening, and why (src/server/stack.ts). */
  stack?: { name: "deno" | "node"; reason: string };
  /** The inspector's URL, when it runs, and a note about its port. */
  inspector?: { url: string; note?: string };
  /** Events come through a hub channel (`--hub`): no tunnel to suggest. */
  hub?: boolean;
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
  const methodWidth = Math.max(...info.endpoints.map((e) => e.methods.join(",").length));
  const urlWidth = Math.max(...info.endpoints.map((e) => `${base}${safeLine(e.path)}`.length));
  const lines = [
    `${c.bold("hooktap dev")} listening on ${c.cyan(base)} ${c.dim(`(bound to ${info.hostname})`)}`,
    ...info.endpoints.map((e) =>
      `  ${c.green(padTo(e.methods.join(","), methodWidth))} ${
        padTo(`${base}${safeLine(e.path)}`, urlWidth)
      }  ${c.dim(`(${safeLine(e.name)})`)}`
    ),
    `Config: ${
      info.configFile ??
        `built-in starter config (no hooktap.config.ts; \`${suggestCommand(["init"])}\` writes one)`
    }`,
    `Events: ${info.eventsFile}`,
    ...(info.stack === undefined ? [] : [
      `Server: ${info.stack.name === "node" ? "node:http" : "Deno.serve"} ${c.dim(`(${info.stack.reason})`)}`,
    ]),
    ...(info.inspector
      ? [
        `Inspect: ${c.cyan(info.inspector.url)} ${c.dim("(the live inspector, on this machine only)")}` +
        (info.inspector.note ? c.yellow(` ${info.inspector.note}`) : ""),
      ]
      : []),
    ...(info.hub ? [] : [
      `Tunnel: in another terminal run ${c.bold(`ngrok http ${info.port}`)} or ${
        c.bold(`cloudflared tunnel --url http://localhost:${info.port}`)
      },`,
      info.endpoints.length > 1
        // Each sender its own endpoint's path: one path for all would send Stripe to GitHub's endpoint.
        ? "        then give each sender <tunnel URL> followed by its endpoint's path (above)"
        : `        then give the sender <tunnel URL>${info.endpoints[0]?.path ?? "/webhook"}`,
    ]),
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
  options: {
    json: boolean;
    endpoints: readonly Endpoint[];
    /** The running config's endpoints (a reload changes them), for the 404 hint. @default () => endpoints */
    endpointsNow?: () => readonly Endpoint[];
  },
): (outcome: RequestOutcome) => void {
  const c = output.colors;
  const knownOf = (list: readonly Endpoint[]) =>
    list.map((e) => `${e.methods.join(",")} ${e.path}`).join(", ");
  let knownFor: readonly Endpoint[] = options.endpoints;
  let known = knownOf(knownFor);
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
  const longest = (values: string[]) => values.reduce((a, b) => (b.length > a.length ? b : a), "");
  const methods = longest(["DELETE", ...options.endpoints.flatMap((e) => e.methods)]);
  const paths = longest(options.endpoints.map((e) => safeLine(e.path)));
  const names = longest(options.endpoints.map((e) => safeLine(e.name)));
  const paint = (status: string) => {
    const n = Number(status);
    return Number.isNaN(n)
      ? c.yellow(status)
      : n < 300
      ? c.green(status)
      : n < 500
      ? c.yellow(status)
      : c.red(status);
  };
  // Stored requests: time, method, path?query, status, endpoint, size, id. Unmatched: ..., status, hint.
  const stored: Column[] = [
    { priority: 7, paint: c.dim },
    { priority: 6 },
    { priority: 8, min: 12 },
    { priority: 10, paint },
    { priority: 5, min: 12 },
    { priority: 2, align: "right" },
    { priority: 9, paint: c.cyan },
    { priority: 3, min: 12, paint: paintVerdict(c) },
  ];
  const unmatched: Column[] = [...stored.slice(0, 4), { priority: 5, min: 10, paint: c.dim }];
  const storedSample = [
    "00:00:00",
    methods,
    paths,
    "200",
    names,
    "1023.9 KiB",
    "evt_00000000_00000000000000000000000000",
  ];
  const human = (o: RequestOutcome): string => {
    const target = safeLine(o.query ? `${cutMarked(o.path)}?${cutMarked(o.query)}` : cutMarked(o.path));
    // A relayed request's sender that hung up before the answer got none: no status to show.
    const head = [formatClock(o.time), safeLine(o.method), target, o.senderLeft ? "left" : String(o.status)];
    const width = output.columns();
    let row: string[];
    let columns: Column[];
    let sample: string[];
    // A stored event's status is its answer (the app's own 404 in relay mode, a configured response):
    // only a request no endpoint took gets the routing hint.
    if ((o.status === 404 || o.status === 405) && o.id === undefined) {
      const now = options.endpointsNow?.() ?? knownFor;
      if (now !== knownFor) [knownFor, known] = [now, knownOf(now)];
      const hint = o.status === 404
        ? `no endpoint here; configured: ${known}`
        : `this path accepts ${o.allow?.join(", ")}`;
      [row, columns, sample] = [[...head, hint], unmatched, [...storedSample.slice(0, 4), ""]];
    } else if (o.id !== undefined) {
      // On a narrow terminal the id's ULID part stands for it (any unique prefix of it works in `inspect`).
      const short = width !== undefined && width < 110;
      const id = short ? (o.id ?? "").slice(13) : o.id ?? "";
      const sender = senderCell(o);
      row = [...head, safeLine(o.endpoint ?? ""), formatBytes(o.size), id, ...(sender ? [sender] : [])];
      sample = [...storedSample.slice(0, 6), short ? id : storedSample[6]!, ...(sender ? [""] : [])];
      columns = sender ? stored : stored.slice(0, 7);
    } else {
      row = [...head, safeLine(o.endpoint ?? ""), `not stored: ${safeLine(o.reason ?? "error")}`];
      [columns, sample] = [
        unmatched.slice(0, 4).concat([{ priority: 5 }, { priority: 4, min: 10 }]),
        storedSample.slice(0, 5),
      ];
    }
    return layoutRows(columns, [sample, row], width)[1]! + "\n";
  };
  const json = (o: RequestOutcome): string =>
    JSON.stringify({
      time: o.time.toISOString(),
      method: o.method,
      path: cutMarked(o.path),
      query: cutMarked(o.query),
      status: o.status,
      endpoint: o.endpoint ?? null,
      size: o.size,
      id: o.id ?? null,
      ...(o.reason !== undefined ? { reason: o.reason } : {}),
      ...(o.provider !== undefined ? { provider: o.provider } : {}),
      ...(o.type !== undefined ? { type: o.type } : {}),
      ...(o.verdict !== undefined ? { verdict: o.verdict } : {}),
      ...(o.answered !== undefined ? { answered: o.answered } : {}),
      ...(o.senderLeft ? { senderLeft: true } : {}),
    }) + "\n";
  const format = options.json ? json : human;
  return (outcome) => {
    if (buffer.length === 0) queueMicrotask(flush);
    buffer.push(format(outcome));
    // "not forwarded (no rule matched)" goes right after its request's line, in the same write: written here,
    // it is held with that line (a hub batch's order) and can never go ahead of it.
    const { id, unrouted } = outcome;
    if (id === undefined || unrouted === undefined) return;
    buffer.push(
      options.json
        ? unroutedJson({ id, endpoint: outcome.endpoint ?? "" })
        : formatUnrouted({ id, receivedAt: unrouted.receivedAt }, output),
    );
  };
}
