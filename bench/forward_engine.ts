/**
 * CPU per delivery of the send engine alone (issue 29): the forwarder with
 * its deliveries log delivering the benchmark's GitHub push to a bare
 * `Deno.serve` app on CPU 1, no receiving. This checkout beside
 * BENCH_FORWARD_BASELINE's (another checkout's main.ts: its src/send is
 * loaded in the same process), in rounds, so a busy machine hits both alike.
 * Pin it: `taskset -c 0 deno run -A bench/forward_engine.ts`.
 *
 *     deno run -A bench/forward_engine.ts [--events N] [--rounds R] [--concurrency C]
 *
 * With `--cpu-prof` (Deno's flag, before the script) the profile shows where a delivery's time goes.
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BODY, githubHeaders, pushRecord } from "./payload.ts";
import { freePort, onCore, startServer } from "./proc.ts";
import type { CapturedEvent } from "../src/event/record.ts";
import type { ForwardTarget } from "../src/send/target.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    events: { type: "string" },
    rounds: { type: "string" },
    concurrency: { type: "string" },
    only: { type: "string" },
  },
});
const N = Number(values.events ?? 20_000);
const ROUNDS = Number(values.rounds ?? 3);
const C = Number(values.concurrency ?? 8);
const BARE = fileURLToPath(new URL("./servers/bare.ts", import.meta.url));
const HERE = fileURLToPath(new URL("../", import.meta.url));
const BASELINE = Deno.env.get("BENCH_FORWARD_BASELINE");

interface Engine {
  createForwarder: typeof import("../src/send/forwarder.ts").createForwarder;
  openDeliveriesLog: typeof import("../src/send/deliveries_log.ts").openDeliveriesLog;
  closeIdleConnections: () => void;
}
async function load(root: string): Promise<Engine> {
  const url = (p: string) => pathToFileURL(join(root, p)).href;
  const f = await import(url("src/send/forwarder.ts"));
  const l = await import(url("src/send/deliveries_log.ts"));
  const c = await import(url("src/send/client.ts"));
  return { createForwarder: f.createForwarder, openDeliveriesLog: l.openDeliveriesLog, ...c };
}

const engines: [string, Engine][] = [];
if (BASELINE && values.only !== "this") engines.push(["baseline", await load(dirname(BASELINE))]);
if (values.only !== "baseline") engines.push(["this checkout", await load(HERE)]);

const port = freePort();
const app = await startServer(onCore(1, [Deno.execPath(), "run", "--allow-net", BARE, String(port)]), {
  cwd: Deno.cwd(),
  port,
});
const headers = await githubHeaders();
let seq = 0;
const event = (): CapturedEvent =>
  pushRecord(
    `evt_20261125_01M84MVMHQ2YM5SNFB${String(seq++).padStart(8, "0")}`,
    headers,
    `http://127.0.0.1:${port}/`,
  );
const target: ForwardTarget = {
  name: `127.0.0.1:${port}`,
  to: `http://127.0.0.1:${port}/`,
  mode: "queue",
  timeoutMs: 30_000,
  concurrency: C,
  attempts: 6,
  backoffMs: [1000, 3000, 9000, 27000, 30000],
  insecure: false,
  endpoint: "github",
  order: "arrival", // what the engine did with no order given (dev's default)
};

const dir = await Deno.makeTempDir({ prefix: "hooktap_fwd_engine_" });
async function drive(engine: Engine, n: number): Promise<{ cpuUs: number; wallMs: number }> {
  const path = join(dir, `deliveries-${seq}.jsonl`);
  const log = await engine.openDeliveriesLog(path);
  let failed = 0;
  const forwarder = engine.createForwarder({
    log,
    onDelivery: (r) => void (r.outcome !== "delivered" && failed++),
  });
  const events = Array.from({ length: n }, event);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  // Arrivals come a few at a time, as from the receiver: a macrotask turn per batch of 8.
  for (let i = 0; i < n; i += 8) {
    for (const e of events.slice(i, i + 8)) forwarder.enqueue(e, target);
    if (i % 64 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  await forwarder.idle();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  await forwarder.stop();
  await log.close();
  const lines = (await Deno.readTextFile(path)).split("\n").length - 1;
  if (failed > 0 || lines !== n) throw new Error(`${failed} failed, ${lines} of ${n} logged`);
  await Deno.remove(path);
  return { cpuUs: (c.user + c.system) / n, wallMs };
}

const results = new Map<string, number[][]>();
try {
  for (const [, engine] of engines) await drive(engine, 2000); // warm up
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, engine] of engines) {
      const m = await drive(engine, N);
      const list = results.get(name) ?? [];
      list.push([m.cpuUs, N / (m.wallMs / 1000)]);
      results.set(name, list);
    }
  }
} finally {
  for (const [, engine] of engines) engine.closeIdleConnections();
  await app.stop();
  await Deno.remove(dir, { recursive: true });
}
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const lines = [
  `send engine alone: ${N} deliveries × ${ROUNDS} rounds, concurrency ${C}, the ${
    new TextEncoder().encode(BODY).length
  }-byte GitHub push to a bare app on CPU 1; medians (min–max)`,
  "",
  "| engine | CPU µs/delivery | deliveries/s |",
  "|---|---:|---:|",
];
for (const [name] of engines) {
  const rs = results.get(name)!;
  const col = (i: number) => rs.map((x) => x[i]!);
  lines.push(
    `| ${name} | ${med(col(0)).toFixed(1)} (${Math.min(...col(0)).toFixed(1)}–${
      Math.max(...col(0)).toFixed(1)
    }) | ${med(col(1)).toFixed(0)} |`,
  );
}
// deno-lint-ignore no-console
console.log(lines.join("\n"));
