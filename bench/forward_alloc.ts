/**
 * Heap allocated per delivery by the send engine (issue 36): the forwarder and its deliveries log delivering
 * the benchmark's GitHub push to a bare `Deno.serve` app, under V8's sampling heap profiler with the objects
 * the collector freed counted too (`node:inspector`). Bytes per delivery are what a scavenge's frequency
 * follows, and unlike CPU time they read the same on a busy machine. Prints the functions that allocate most.
 *
 *     deno run -A bench/forward_alloc.ts [--events 10000] [--top 25] [--base /other/checkout/main.ts]
 * @module
 */
import inspector from "node:inspector";
import { parseArgs } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { pushSink } from "./payload.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { events: { type: "string" }, top: { type: "string" }, base: { type: "string" } },
});
const N = Number(values.events ?? 10_000);
const ROOT = values.base === undefined
  ? fileURLToPath(new URL("../", import.meta.url))
  : dirname(values.base);
const url = (p: string) => pathToFileURL(join(ROOT, p)).href;
const { createForwarder } = await import(url("src/send/forwarder.ts"));
const { openDeliveriesLog } = await import(url("src/send/deliveries_log.ts"));
const { closeIdleConnections } = await import(url("src/send/client.ts"));
const { app, event, target } = await pushSink(8);
const dir = await Deno.makeTempDir({ prefix: "hooktap_fwd_alloc_" });
let runs = 0; // each run its own deliveries log
/** Delivers `n` events, made before the first is enqueued (their making is not counted). */
async function drive(n: number, around: (run: () => Promise<void>) => Promise<void> = (run) => run()) {
  const log = await openDeliveriesLog(join(dir, `deliveries-${runs++}.jsonl`));
  const forwarder = createForwarder({ log });
  const events = Array.from({ length: n }, event);
  await around(async () => {
    for (let i = 0; i < n; i += 8) {
      for (let j = i; j < Math.min(n, i + 8); j++) forwarder.enqueue(events[j]!, target);
      if (i % 64 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    await forwarder.idle();
  });
  await forwarder.stop();
  await log.close();
}

interface Node {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: Node[];
}
let head: Node;
try {
  await drive(3000); // warm up
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params: object = {}) =>
    new Promise<{ profile?: { head: Node } }>((resolve, reject) =>
      session.post(method, params, (error, result) => error ? reject(error) : resolve(result as never))
    );
  await post("HeapProfiler.enable");
  let profile: { head: Node } | undefined;
  await drive(N, async (run) => {
    await post("HeapProfiler.startSampling", {
      samplingInterval: 128,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    await run();
    profile = (await post("HeapProfiler.stopSampling")).profile;
  });
  head = profile!.head;
} finally {
  closeIdleConnections();
  await app.stop();
  await Deno.remove(dir, { recursive: true });
}
const self = new Map<string, number>();
const walk = (node: Node): number => {
  const f = node.callFrame;
  const name = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*?\/(src|bench)\//, "$1/")}`;
  self.set(name, (self.get(name) ?? 0) + node.selfSize);
  return node.children.reduce((sum, c) => sum + walk(c), node.selfSize);
};
const total = walk(head);
const lines = [
  `send engine (${values.base ?? "this checkout"}): ${(total / N).toFixed(0)} B of heap per delivery`,
];
for (const [name, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top ?? 25))) {
  lines.push(`${(bytes / N).toFixed(0).padStart(7)} B  ${name}`);
}
// deno-lint-ignore no-console
console.log(lines.join("\n"));
