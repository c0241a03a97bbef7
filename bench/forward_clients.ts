/**
 * CPU per forwarded request of the HTTP clients forwarding could use, side by
 * side in one run, in rounds (so a busy machine hits each alike): `node:http`
 * with a flat raw header array (hooktap's client before), `fetch`, and the raw
 * HTTP/1.1 client over `Deno.connect` (src/send/http1.ts). Each sends the
 * benchmark's GitHub push (body and headers) to a bare `Deno.serve` app in
 * another process, `concurrency` at a time; also the cost of a deliveries-log
 * append per attempt, and the floor: the same request bytes written and the
 * answer read on kept-alive connections with nothing parsed (what any client
 * in Deno pays for the two system calls and the wake-ups). Pin it: `taskset -c 0 deno run -A bench/forward_clients.ts`
 * (the app goes to CPU 1).
 *
 *     deno run -A bench/forward_clients.ts [--requests N] [--rounds R] [--concurrency C]
 * @module
 */
import http from "node:http";
import process from "node:process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { BODY, githubHeaders } from "./payload.ts";
import { freePort, onCore, startServer } from "./proc.ts";
import { Http1Pool } from "../src/send/http1.ts";
import { openDeliveriesLog } from "../src/send/deliveries_log.ts";
import { DELIVERY_VERSION, type DeliveryRecord } from "../src/event/delivery.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { requests: { type: "string" }, rounds: { type: "string" }, concurrency: { type: "string" } },
});
const N = Number(values.requests ?? 3000);
const ROUNDS = Number(values.rounds ?? 3);
const C = Number(values.concurrency ?? 8);
const BARE = fileURLToPath(new URL("./servers/bare.ts", import.meta.url));

const port = freePort();
const app = await startServer(onCore(1, [Deno.execPath(), "run", "--allow-net", BARE, String(port)]), {
  cwd: Deno.cwd(),
  port,
});
const body = new TextEncoder().encode(BODY);
const headers = (await githubHeaders()).filter(([n]) => !/^(host|connection)$/i.test(n));
headers.push(["Content-Length", String(body.length)]);
const host = `127.0.0.1:${port}`;

const agent = new http.Agent({ keepAlive: true });
const flat = ["Host", host, ...headers.flat()];
function viaNode(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      hostname: "127.0.0.1",
      port,
      method: "POST",
      path: "/hooks",
      headers: flat as unknown as http.OutgoingHttpHeaders,
      setHost: false,
      agent,
    }, (res) => {
      const raw = res.rawHeaders;
      const pairs: [string, string][] = [];
      for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
      res.on("data", () => {});
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const fetchHeaders = headers.filter(([n]) => n.toLowerCase() !== "content-length");
async function viaFetch(): Promise<number> {
  const r = await fetch(`http://${host}/hooks`, {
    method: "POST",
    headers: fetchHeaders,
    body,
    redirect: "manual",
  });
  const pairs = [...r.headers];
  await r.arrayBuffer();
  return r.status + pairs.length * 0;
}

const pool = new Http1Pool();
const origin = { hostname: "127.0.0.1", port };
const rawHeaders: [string, string][] = [["Host", host], ...headers];
async function viaRaw(): Promise<number> {
  const r = await pool.request(origin, { method: "POST", target: "/hooks", headers: rawHeaders, body }, {
    timeoutMs: 30_000,
    maxBody: 65536,
  });
  return r.status;
}

/** The floor: the request's bytes, made once, written; the answer read up to its end, nothing parsed. */
const wire = new TextEncoder().encode(
  `POST /hooks HTTP/1.1\r\n${rawHeaders.map(([n, v]) => `${n}: ${v}\r\n`).join("")}\r\n`,
);
const request = new Uint8Array(wire.length + body.length);
request.set(wire);
request.set(body, wire.length);
const idle: Deno.TcpConn[] = [];
const answer = new Uint8Array(64 * 1024);
async function viaWire(): Promise<number> {
  const conn = idle.pop() ?? await Deno.connect({ hostname: "127.0.0.1", port });
  let off = 0;
  while (off < request.length) off += await conn.write(request.subarray(off));
  // bench/servers/bare.ts answers `ok` with `content-length: 2`: the head's end, then two bytes.
  let got = 0;
  for (let end = -1; end < 0 || got < end + 2;) {
    const n = await conn.read(answer.subarray(got));
    if (n === null) throw new Error("the app closed the connection");
    got += n;
    for (let i = Math.max(3, got - n); end < 0 && i < got; i++) {
      if (answer[i] === 10 && answer[i - 1] === 13 && answer[i - 2] === 10 && answer[i - 3] === 13) {
        end = i + 1;
      }
    }
  }
  idle.push(conn);
  return answer[9] === 0x32 && answer[10] === 0x30 && answer[11] === 0x30 ? 200 : 0;
}

async function drive(
  send: () => Promise<number>,
  n: number,
): Promise<{ cpuUs: number; userUs: number; sysUs: number; wallMs: number }> {
  let left = n;
  const worker = async () => {
    while (left-- > 0) if ((await send()) !== 200) throw new Error("not 200");
  };
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: C }, worker));
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { cpuUs: (c.user + c.system) / n, userUs: c.user / n, sysUs: c.system / n, wallMs };
}

const dir = await Deno.makeTempDir({ prefix: "hooktap_fwd_clients_" });
const log = await openDeliveriesLog(join(dir, "deliveries.jsonl"));
const record = (i: number): DeliveryRecord => ({
  v: DELIVERY_VERSION,
  id: log.newId(new Date()),
  event: `evt_20261123_01M84MVMHQ2YM5SNFBJYYV1B${String(i).padStart(2, "0")}`,
  endpoint: "github",
  source: "forward",
  target: "bench",
  url: `http://${host}/hooks`,
  method: "POST",
  attempt: 1,
  startedAt: new Date().toISOString(),
  durationMs: 1.2,
  outcome: "delivered",
  status: 200,
  statusText: "OK",
  headers: [["content-type", "text/plain;charset=UTF-8"], ["vary", "Accept-Encoding"], [
    "content-length",
    "2",
  ], [
    "date",
    new Date().toUTCString(),
  ]],
  body: "ok",
  bodyEncoding: "utf8",
  bodySize: 2,
});
let appendIx = 0;
const viaLog = async () => (await log.append(record(appendIx++ % 100)), 200);

const clients: [string, () => Promise<number>][] = [
  ["node:http (flat raw headers)", viaNode],
  ["fetch", viaFetch],
  ["the floor: the bytes written, the answer read, nothing parsed", viaWire],
  ["raw HTTP/1.1 over Deno.connect", viaRaw],
  ["deliveries-log append (no send)", viaLog],
  ["raw HTTP/1.1, then the append awaited", async () => (await viaRaw(), await viaLog())],
];
const results = new Map<string, number[][]>();
try {
  for (const [, send] of clients) await drive(send, 300); // warm up
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, send] of clients) {
      const m = await drive(send, N);
      const list = results.get(name) ?? [];
      list.push([m.cpuUs, m.userUs, m.sysUs, N / (m.wallMs / 1000)]);
      results.set(name, list);
    }
  }
} finally {
  pool.close();
  for (const conn of idle) conn.close();
  agent.destroy();
  await log.close();
  await app.stop();
  await Deno.remove(dir, { recursive: true });
}
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const lines = [
  `${N} requests × ${ROUNDS} rounds, ${C} in flight, ${body.length}-byte body, ${rawHeaders.length} headers; medians (min–max of CPU)`,
  "",
  "| client | CPU µs/request | user | sys | req/s |",
  "|---|---:|---:|---:|---:|",
];
for (const [name] of clients) {
  const rs = results.get(name)!;
  const col = (i: number) => rs.map((x) => x[i]!);
  lines.push(
    `| ${name} | ${med(col(0)).toFixed(0)} (${Math.min(...col(0)).toFixed(0)}–${
      Math.max(...col(0)).toFixed(0)
    }) | ${med(col(1)).toFixed(0)} | ${med(col(2)).toFixed(0)} | ${med(col(3)).toFixed(0)} |`,
  );
}
// deno-lint-ignore no-console
console.log(lines.join("\n"));
