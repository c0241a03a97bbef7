/**
 * Forwarding's floor on one core (issue 36, target 6): what any Deno program pays, at the least, to deliver
 * the forward bench's request, beside what receiving it costs, so that "received and delivered ≥ 0.65 of
 * receive-only" can be judged against what is reachable at all. `deno task bench --only forward` pins dev to
 * CPU 0 and the load generator and the app to CPU 1; dev's CPU is the bottleneck, so the ratio is about
 * R / (R + D): R dev's CPU to receive an event, D its CPU to deliver one.
 *
 * - **the client floor** (D's least): this process, pinned to CPU 0, posts the request dev forwards (the
 *   GitHub push, its headers, `Host` and `Content-Length`: the same bytes) to bench/servers/bare.ts on CPU 1
 *   over 8 kept-alive `Deno.connect` connections, the request's bytes made once and written, the answer read to
 *   its end, nothing parsed: the two system calls and the wake-ups. No HTTP/1.1 pipelining (unsafe for POSTs
 *   to an arbitrary app): one request at a time per connection.
 * - **the read-back floor**: under a sustained overload dev's deliveries fall behind and each event is read
 *   back from `events.jsonl` (memory stays bounded); its least is `JSON.parse` of the stored line.
 * - **receive-only**: CPU per request of a bare `Deno.serve` app (bench/servers/bare.ts) and of `hooktap dev`
 *   without forwarding, each on CPU 0 under wrk on CPU 1 posting the same body and headers.
 *
 * It prints the ratio a forwarder at the floor would reach: R_dev / (R_dev + D_floor), with and without the
 * read-back. Pin it: `taskset -c 0 deno run -A bench/forward_floor.ts [--requests N] [--rounds R] [--seconds S]`.
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { BODY, githubHeaders, pushRecord } from "./payload.ts";
import { freePort, onCore, startServer } from "./proc.ts";
import { pickLoadGenerator, runLoad } from "./load.ts";
import { cpuUs, startDev } from "./forward.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string" },
    rounds: { type: "string" },
    seconds: { type: "string" },
    concurrency: { type: "string" },
  },
});
const N = Number(values.requests ?? 20_000);
const ROUNDS = Number(values.rounds ?? 3);
const SECONDS = Number(values.seconds ?? 5); // as `deno task bench --only forward`
const C = Number(values.concurrency ?? 8);
const BARE = fileURLToPath(new URL("./servers/bare.ts", import.meta.url));
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const span = (v: number[]) =>
  `${med(v).toFixed(1)} (${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)})`;

const scratch = await Deno.makeTempDir({ prefix: "hooktap_fwd_floor_" });
const body = new TextEncoder().encode(BODY);
const headers = await githubHeaders();

/** The client floor: `n` requests, `C` at a time over kept-alive connections; CPU µs per request. */
async function clientFloor(port: number, n: number, readBack?: Uint8Array): Promise<number> {
  const host = `127.0.0.1:${port}`;
  // What dev's forwarder writes: the stored headers minus hop-by-hop ones, `Host` first, `Content-Length`.
  const head = new TextEncoder().encode(
    `POST / HTTP/1.1\r\nHost: ${host}\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")}` +
      `Content-Length: ${body.length}\r\n\r\n`,
  );
  const request = new Uint8Array(head.length + body.length);
  request.set(head);
  request.set(body, head.length);
  const conns = await Promise.all(
    Array.from({ length: C }, () => Deno.connect({ hostname: "127.0.0.1", port })),
  );
  for (const c of conns) c.setNoDelay(true);
  let left = n;
  let parsed = 0;
  const lane = async (conn: Deno.TcpConn) => {
    const answer = new Uint8Array(16 * 1024);
    while (left-- > 0) {
      // Decoded from bytes each time, as the read-back does (a fresh string: nothing cached).
      if (readBack !== undefined) {
        parsed += (JSON.parse(decoder.decode(readBack)) as { bodySize: number }).bodySize;
      }
      let off = 0;
      while (off < request.length) off += await conn.write(request.subarray(off));
      // bare.ts answers `ok` with a Content-Length of 2: the head's end, then two bytes.
      let got = 0;
      for (let end = -1; end < 0 || got < end + 2;) {
        const r = await conn.read(answer.subarray(got));
        if (r === null) throw new Error("the app closed the connection");
        got += r;
        for (let i = Math.max(3, got - r); end < 0 && i < got; i++) {
          if (answer[i] === 10 && answer[i - 1] === 13 && answer[i - 2] === 10 && answer[i - 3] === 13) {
            end = i + 1;
          }
        }
      }
      if (answer[9] !== 0x32) throw new Error("not a 2xx answer");
    }
  };
  const c0 = process.cpuUsage();
  await Promise.all(conns.map(lane));
  const c = process.cpuUsage(c0);
  for (const conn of conns) conn.close();
  if (readBack !== undefined && parsed !== n * body.length) throw new Error("read-back parse miscounted");
  return (c.user + c.system) / n;
}

/** CPU µs per request of the process `pid` (on CPU 0) under wrk (on CPU 1) posting the bench's request. */
async function receiveOnly(pid: number, port: number, path: string): Promise<number> {
  const bodyFile = join(scratch, "body.json");
  const headersFile = join(scratch, "headers.txt");
  await Deno.writeTextFile(bodyFile, BODY);
  await Deno.writeTextFile(headersFile, headers.map(([k, v]) => `${k}: ${v}\n`).join(""));
  const cpu0 = cpuUs(pid);
  const result = await runLoad(pickLoadGenerator(), {
    url: `http://127.0.0.1:${port}${path}`,
    seconds: SECONDS,
    connections: 64,
    core: 1,
    bodyFile,
    headersFile,
  });
  if (result.failures > 0 || result.requests === 0) {
    throw new Error(`receive-only: ${result.failures} failures`);
  }
  return (cpuUs(pid) - cpu0) / result.requests;
}

// The stored line of the bench's event, as dev's read-back parses it.
const decoder = new TextDecoder();
const stored = new TextEncoder().encode(JSON.stringify(
  pushRecord("evt_20261129_01M84MVMHQ2YM5SNFBJYYV1B00", headers, "http://127.0.0.1:1/"),
));

const rows = { client: [] as number[], readBack: [] as number[], bare: [] as number[], dev: [] as number[] };
const appPort = freePort();
const app = await startServer(onCore(1, [Deno.execPath(), "run", "--allow-net", BARE, String(appPort)]), {
  cwd: scratch,
  port: appPort,
});
try {
  await clientFloor(appPort, 2000); // warm up
  await clientFloor(appPort, 2000, stored);
  for (let r = 0; r < ROUNDS; r++) {
    rows.client.push(await clientFloor(appPort, N));
    rows.readBack.push(await clientFloor(appPort, N, stored));
  }
} finally {
  await app.stop();
}
try {
  for (let r = 0; r < ROUNDS; r++) {
    const barePort = freePort();
    const bare = await startServer(
      onCore(0, [Deno.execPath(), "run", "--allow-net", BARE, String(barePort)]),
      {
        cwd: scratch,
        port: barePort,
      },
    );
    try {
      rows.bare.push(await receiveOnly(bare.pid, barePort, "/"));
    } finally {
      await bare.stop();
    }
    const dir = join(scratch, `dev-${r}`);
    const dev = await startDev(dir, []);
    try {
      rows.dev.push(await receiveOnly(dev.pid, dev.port, "/webhook"));
    } finally {
      await dev.stop();
    }
  }
} finally {
  await Deno.remove(scratch, { recursive: true });
}

const rDev = med(rows.dev);
const dFloor = med(rows.client);
const dRead = med(rows.readBack);
const lines = [
  `Forwarding's floor: the bench's request (${body.length}-byte GitHub push, ${
    headers.length + 2
  } headers); ` +
  `${ROUNDS} rounds; CPU µs per request, medians (min–max)`,
  "",
  "| what | CPU µs/request |",
  "|---|---:|",
  `| client floor: ${C} kept-alive Deno.connect connections, bytes written, answer read (CPU 0 → bare app on CPU 1) | ${
    span(rows.client)
  } |`,
  `| the same, each event's stored line parsed first (the read-back under overload) | ${
    span(rows.readBack)
  } |`,
  `| receive-only: bare Deno.serve on CPU 0 (wrk on CPU 1, 64 connections, ${SECONDS} s from start, as the forward bench) | ${
    span(rows.bare)
  } |`,
  `| receive-only: hooktap dev on CPU 0 (the same load) | ${span(rows.dev)} |`,
  "",
  `A forwarder at the floor, on dev's one core: received and delivered / receive-only = R/(R+D) = ${
    (rDev / (rDev + dFloor)).toFixed(2)
  } (R ${rDev.toFixed(1)}, D ${dFloor.toFixed(1)}); with the read-back ${
    (rDev / (rDev + dRead)).toFixed(2)
  }. ` +
  `0.65 leaves D ≤ ${(rDev * (1 / 0.65 - 1)).toFixed(1)} µs: ${
    (rDev * (1 / 0.65 - 1) - dRead).toFixed(1)
  } µs above the floor with the read-back for the HTTP parsing, the deliveries log, the bookkeeping and their garbage.`,
];
// deno-lint-ignore no-console
console.log(lines.join("\n"));
