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
import { BODY, pushSink } from "./payload.ts";

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

const { app, event, target } = await pushSink(C);

const dir = await Deno.makeTempDir({ prefix: "hooktap_fwd_engine_" });
let runs = 0; // each run its own deliveries log
async function drive(engine: Engine, n: number): Promise<{ cpuUs: number; wallMs: number }> {
  const path = join(dir, `deliveries-${runs++}.jsonl`);
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
    // In turns, the order alternated round by round: a busy machine's swings hit both alike.
    for (const [name, engine] of r % 2 === 0 ? engines : [...engines].reverse()) {
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
if (engines.length === 2) {
  // Round by round: deliveries/s of this checkout over the baseline's (the wall rate of a serial lane,
  // `--concurrency 1`, is the time from each answer to the next send).
  const [a, b] = engines.map(([name]) => results.get(name)!);
  const paired = (what: string, i: number, better: (r: number) => boolean) => {
    const ratios = a!.map((x, k) => b![k]![i]! / x[i]!);
    return `${what}, this checkout over the baseline, round by round: ${
      ratios.map((x) => x.toFixed(2)).join(" ")
    } (median ${med(ratios).toFixed(2)}, ahead in ${ratios.filter(better).length} of ${ratios.length})`;
  };
  lines.push("", paired("CPU per delivery", 0, (r) => r < 1), paired("deliveries/s", 1, (r) => r > 1));
}
// deno-lint-ignore no-console
console.log(lines.join("\n"));
