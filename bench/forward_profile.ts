/**
 * Where `hooktap dev --forward-to` spends its CPU (issue 29): dev with
 * `--cpu-prof` on core 0 forwarding to a bare app on core 1, loaded from
 * core 1 like bench/profile.ts, then drained (every event delivered); prints
 * the functions with the most self and inclusive time in µs per event
 * (received and delivered), and dev's CPU per event by thread from /proc.
 *
 *     deno run -A bench/forward_profile.ts [--seconds 5] [--top 40] [--main PATH/main.ts] [--no-prof] [--concurrency N]
 *       [--under NAME]... [--receive-only]
 *
 * `--receive-only` runs dev without forwarding (the same load): the other side of the ratio, by thread.
 *
 * `--gc` runs dev with V8's `--trace-gc` (its standard output kept in a file) and prints its collections per
 * 1,000 events: scavenges and mark-compacts, their pauses on the main thread, and how much the old generation
 * grew between scavenges (what they promoted). Run it with and without `--receive-only`.
 *
 * `--under NAME` (repeatable) also prints where the time under each function named NAME (`NAME*`: whose name
 * starts so) goes: its callees' inclusive µs per event (and its own self time), e.g. `--under "#record"`.
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, onCore, startServer } from "./proc.ts";
import { devFlags } from "./write_side.ts";
import { summarize } from "./profile.ts";
import { bareAppFor, loadAndDrain } from "./forward.ts";
import type { LoadResult } from "./load.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * The time under the frames of function `prefix` (`name*`: whose name starts so) (not nested in another such frame),
 * split by the callee it went through ("(self)" for the frame's own): shares of the profile's time.
 */
function under(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, prefix: string) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const matches = (f: string) => prefix.endsWith("*") ? f.startsWith(prefix.slice(0, -1)) : f === prefix;
  const name = (n: ProfileNode) =>
    `${n.callFrame.functionName || "(anonymous)"} ${
      n.callFrame.url.replace(/^.*\/(src|bench|npm|ext)\//, "$1/")
    }`;
  let total = 0;
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const t = profile.timeDeltas[i] ?? 0;
    total += t;
    // The outermost matching frame on the stack, and the frame just below it.
    let below: number | undefined;
    let hit: { via: number | undefined } | undefined;
    for (
      let cur: number | undefined = id, prev: number | undefined;
      cur !== undefined;
      prev = cur, cur = parent.get(cur)
    ) {
      if (matches(byId.get(cur)!.callFrame.functionName)) hit = { via: prev };
      below = prev;
    }
    void below;
    if (hit === undefined) return;
    const key = hit.via === undefined ? "(self)" : name(byId.get(hit.via)!);
    out.set(key, (out.get(key) ?? 0) + t);
  });
  for (const [k, v] of out) out.set(k, v / total);
  return out;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    top: { type: "string", default: "40" },
    main: { type: "string" },
    "no-prof": { type: "boolean", default: false },
    /** The target's `concurrency` (set in the config instead of `--forward-to`). */
    concurrency: { type: "string" },
    under: { type: "string", multiple: true },
    "receive-only": { type: "boolean", default: false },
    gc: { type: "boolean", default: false },
  },
});
const MAIN = values.main ?? fileURLToPath(new URL("../main.ts", import.meta.url));

// The summary of bench/profile.ts (which parses its own flags when imported).
/** CPU µs (user + system) per thread name of a live process, from /proc/PID/task/*\/stat. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/stat`);
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[-_ ]?\d+$/, "");
      const f = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 1e4);
    } catch { /* the thread ended */ }
  }
  return out;
}

const dir = await Deno.makeTempDir({ prefix: "hooktap_fwd_profile_" });
try {
  const { app, port: appPort } = await bareAppFor(dir);
  const to = `http://127.0.0.1:${appPort}/`;
  const forward = values.concurrency === undefined
    ? ""
    : `, forward: { to: "${to}", concurrency: ${Number(values.concurrency)} }`;
  await Deno.writeTextFile(
    join(dir, "hooktap.config.ts"),
    `export default { port: 8787, endpoints: [{ name: "github", path: "/webhook", method: "POST"${forward} }] };\n`,
  );
  const port = freePort();
  const prof = values["no-prof"] ? [] : ["--cpu-prof", `--cpu-prof-dir=${join(dir, "prof")}`];
  const gcLog = join(dir, "gc.txt");
  const flags = values.gc
    ? devFlags().map((f) => f.startsWith("--v8-flags=") ? `${f},--trace-gc` : f)
    : devFlags();
  if (values.gc && !flags.some((f) => f.startsWith("--v8-flags="))) flags.push("--v8-flags=--trace-gc");
  // With --gc, dev's standard output (where V8 traces) goes to a file: a shell that execs dev in its place
  // (the same pid, for /proc).
  const withGcLog = (argv: string[]) =>
    values.gc
      ? ["sh", "-c", `exec ${argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ")} > '${gcLog}'`]
      : argv;
  const server = await startServer(
    withGcLog(onCore(0, [
      Deno.execPath(),
      "run",
      ...flags,
      `--allow-read=${join(dirname(MAIN), "src")}`, // --main: another checkout reads its own modules
      ...prof,
      MAIN,
      "dev",
      "--quiet",
      "--port",
      String(port),
      ...(values.concurrency === undefined && !values["receive-only"] ? ["--forward-to", to] : []),
    ])),
    { cwd: dir, port },
  );
  let stored = 0;
  let threads = new Map<string, number>();
  let load: LoadResult | undefined;
  try {
    const before = threadCpu(server.pid);
    ({ load, stored } = await loadAndDrain(port, dir, {
      seconds: Number(values.seconds),
      receiveOnly: values["receive-only"],
      pollMs: 20,
    }));
    const after = threadCpu(server.pid);
    for (const [name, us] of after) threads.set(name, us - (before.get(name) ?? 0));
    threads = new Map([...threads].filter(([, us]) => us > 0).sort((a, b) => b[1] - a[1]));
  } finally {
    await server.stop();
    await app.stop();
  }
  // deno-lint-ignore no-console
  const say = (line: string) => console.log(line);
  say(
    values["receive-only"]
      ? `dev without forwarding under load: ${load.rps.toFixed(0)} req/s, ${stored} events received`
      : `dev --forward-to under load: ${load.rps.toFixed(0)} req/s, ${stored} events received and delivered`,
  );
  say(`\nCPU µs per event by thread (user + system, /proc):`);
  let total = 0;
  for (const [name, us] of threads) {
    total += us;
    say(`  ${(us / stored).toFixed(1).padStart(7)}  ${name}`);
  }
  say(`  ${(total / stored).toFixed(1).padStart(7)}  all`);
  if (values.gc) say(`\n${gcSummary(await Deno.readTextFile(gcLog), stored)}`);
  if (!values["no-prof"]) {
    const file = [...Deno.readDirSync(join(dir, "prof"))].map((e) => e.name).find((n) =>
      !n.includes("worker")
    );
    if (file === undefined) throw new Error("hooktap dev wrote no CPU profile");
    const profile = JSON.parse(await Deno.readTextFile(join(dir, "prof", file)));
    const wall = (profile.timeDeltas as number[]).reduce((a, b) => a + b, 0);
    const { self, inclusive } = summarize(profile);
    // The profiler samples on the wall clock: on a busy machine a sample's time includes the thread waiting
    // for the core. The last column shares out the main thread's CPU per event (/proc) by the busy samples
    // instead, which reads the same however busy the machine is.
    const busy = 1 - (self.get("(idle) ") ?? 0);
    const mainCpu = (threads.get("deno") ?? 0) / stored;
    const print = (title: string, m: Map<string, number>) => {
      say(`\n${title} (share of the main thread's profiled time, wall µs per event, CPU µs per event)`);
      for (const [k, v] of [...m].sort((x, y) => y[1] - x[1]).slice(0, Number(values.top))) {
        const cpu = k.startsWith("(idle)") ? "" : (Math.min(1, v / busy) * mainCpu).toFixed(2);
        say(
          `${(v * 100).toFixed(1).padStart(5)}%  ${(v * wall / stored).toFixed(2).padStart(6)} µs  ${
            cpu.padStart(6)
          } µs  ${k}`,
        );
      }
    };
    print("Self time", self);
    print("Inclusive time", inclusive);
    for (const name of values.under ?? []) print(`Under ${name}, by callee`, under(profile, name));
  }
} finally {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/**
 * V8's `--trace-gc` lines summed per 1,000 events: collections of each kind and their main-thread pauses,
 * and the old generation's growth between scavenges (the heap after one scavenge over the heap after the
 * one before, when no mark-compact came between: what the scavenge promoted, about).
 */
function gcSummary(trace: string, events: number): string {
  let scavenges = 0, scavengeMs = 0, compacts = 0, compactMs = 0, promotedMb = 0;
  let after: number | undefined;
  for (const line of trace.split("\n")) {
    const m =
      /: (Scavenge|Mark-Compact|Incremental Mark-Compact|Minor Mark-Sweep)\b.*?-> ([\d.]+) \([\d.]+\) MB.*?, ([\d.]+) \/ [\d.]+ ms/
        .exec(line);
    if (m === null) continue;
    const heap = Number(m[2]);
    if (m[1] === "Scavenge" || m[1] === "Minor Mark-Sweep") {
      scavenges++;
      scavengeMs += Number(m[3]);
      if (after !== undefined && heap > after) promotedMb += heap - after;
      after = heap;
    } else {
      compacts++;
      compactMs += Number(m[3]);
      after = undefined;
    }
  }
  const per = (n: number) => (n * 1000 / events).toFixed(2);
  return [
    `GC per 1,000 events (V8 --trace-gc; main-thread pauses, the concurrent work on the worker threads not counted):`,
    `  scavenges ${per(scavenges)}, ${per(scavengeMs)} ms (${
      (scavengeMs / Math.max(1, scavenges)).toFixed(2)
    } ms each)`,
    `  mark-compacts ${per(compacts)}, ${per(compactMs)} ms`,
    `  old generation grown by scavenges: ${per(promotedMb)} MB (${
      (promotedMb * 1024 * 1024 / events / 1024).toFixed(2)
    } KB per event)`,
  ].join("\n");
}
