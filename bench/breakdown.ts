/**
 * Where a request's time goes on the server's core, outside JavaScript too:
 * the durable ceiling (c) and `hooktap dev` (b) side by side, each loaded
 * like the write side (server on core 0, load on core 1), with the kernel's
 * own accounting of every thread of the server process
 * (`/proc/PID/task/TID/stat` user and system time, `/proc/.../status`
 * context switches) read before and after a timed run, divided by the
 * requests answered. A second, shorter run under `strace -c -f` counts the
 * system calls per request and per fdatasync batch (strace slows the server,
 * so only counts are taken from it, never times).
 *
 * (p) the Node/Express peer (bench/peer.ts) joins when its checkout is given.
 *
 *     deno run -A bench/breakdown.ts [--seconds 5] [--smoke] [--peer-dir DIR] [--only c,c2,b,node] [--base DIR/main.ts]
 * @module
 */
import { dirname, join } from "node:path";
import type { LoadGenerator } from "./load.ts";
import { hasCommand } from "./proc.ts";
import { fileURLToPath } from "node:url";
import { startConfig, WRITE_CONFIGS, type WriteConfig } from "./write_side.ts";
import { nativeReport, type NativeSplit, nativeUnavailable, recordNative, splitNative } from "./native.ts";
import { batchesReport, type BatchTimeline, traceBatches } from "./batches.ts";
import { PEER_LABEL } from "./peer.ts";

/** (c2) the honest ceiling (bench/servers/honest.ts), as the write side runs it. */
export const HONEST_CEILING: BreakdownConfig = WRITE_CONFIGS.find((c) => c.key === "c2")!;

/**
 * The honest ceiling built up a part at a time (`--steps`): (c), then each of
 * its parts added to the ones before, so each part's cost reads as the
 * difference between two rows.
 */
export function honestSteps(): BreakdownConfig[] {
  const parts = ["headers", "record", "verdict", "answer"];
  const labels = ["+ header list", "+ id and record line", "+ verdict", "+ id answered (= c2)"];
  return parts.map((_, i) => ({
    ...HONEST_CEILING,
    label: `(c) ${labels.slice(0, i + 1).join(" ")}`,
    argv: (port: number, dir: string) => [...HONEST_CEILING.argv(port, dir), parts.slice(0, i + 1).join(",")],
  }));
}

const DEV = WRITE_CONFIGS.find((c) => c.key === "b")!;

/** A configuration of the breakdown: a write-side server (with the config file `dev` finds, if any). */
export type BreakdownConfig = WriteConfig;

/**
 * (b) on the `node:http` stack (`HOOKTAP_STACK=node`), with a GET endpoint
 * beside the POST one (a config that picked node:http by itself before
 * Deno.serve read GET bodies): the write side's configuration.
 */
export const DEV_NODE_STACK: BreakdownConfig = {
  ...WRITE_CONFIGS.find((c) => c.key === "b-node")!,
  label: "(b) dev, node:http stack (HOOKTAP_STACK=node, a GET endpoint in the config)",
};

/** The same config as {@linkcode DEV_NODE_STACK} on Deno.serve (the default now; forced for older trees). */
export const DEV_GET_ON_DENO: BreakdownConfig = {
  ...DEV_NODE_STACK,
  label: "(b) dev, Deno.serve, the same GET config (HOOKTAP_STACK=deno)",
  argv: (port, dir) => ["env", "HOOKTAP_STACK=deno", ...DEV.argv(port, dir)],
};

/** One thread's counters (clock ticks and switches). */
interface ThreadSample {
  name: string;
  utime: number;
  stime: number;
  voluntary: number;
  involuntary: number;
}

const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux

/** Every thread of `pid`, grouped by thread name (the runtime's worker threads share one). */
export function sampleThreads(pid: number): Map<string, ThreadSample> {
  const byName = new Map<string, ThreadSample>();
  let tids: string[] = [];
  try {
    tids = [...Deno.readDirSync(`/proc/${pid}/task`)].map((e) => e.name);
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/task/${tid}/stat`);
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" ");
      // Fields after the name start at field 3 (state): utime is field 14, stime 15.
      const utime = Number(fields[11]);
      const stime = Number(fields[12]);
      const status = Deno.readTextFileSync(`/proc/${pid}/task/${tid}/status`);
      const voluntary = Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const involuntary = Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const key = threadGroup(name, tid === String(pid));
      const s = byName.get(key) ?? { name: key, utime: 0, stime: 0, voluntary: 0, involuntary: 0 };
      s.utime += utime;
      s.stime += stime;
      s.voluntary += voluntary;
      s.involuntary += involuntary;
      byName.set(key, s);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
}

/** A readable name for a runtime thread. */
function threadGroup(comm: string, main: boolean): string {
  if (comm === "deno" || (comm === "node" && main)) return "main (JS, event loop)";
  // Node names none of its other threads: V8's platform workers (GC, compiler), libuv's pool, the inspector's.
  if (comm === "node") return "node's other threads (V8 workers: GC, compiler; libuv)";
  if (comm.startsWith("tokio-runtime")) return "tokio workers (blocking fs ops: write, fdatasync)";
  if (comm.startsWith("V8 DefaultWorke") || comm.startsWith("V8_DefaultWorke")) {
    return "V8 workers (GC, compiler)";
  }
  return `other (${comm})`;
}

/** Per-thread cost of one request. */
export interface ThreadCost {
  name: string;
  userUs: number;
  sysUs: number;
  voluntary: number;
  involuntary: number;
}

/** One configuration's breakdown. */
export interface Breakdown {
  label: string;
  rps: number;
  requests: number;
  threads: ThreadCost[];
  /** System calls per request by name (from the strace run), most first. */
  syscalls: [string, number][];
  /** Requests per fdatasync (batch size) in the strace run. */
  perSync: number;
  /** The native profile's split (a third run under `perf`), when it could be taken. */
  native?: NativeSplit;
  /** A batch's timeline from `perf trace` (with the native profile). */
  batches?: BatchTimeline;
}

function diff(before: Map<string, ThreadSample>, after: Map<string, ThreadSample>, requests: number) {
  const out: ThreadCost[] = [];
  for (const [name, a] of after) {
    const b = before.get(name) ?? { name, utime: 0, stime: 0, voluntary: 0, involuntary: 0 };
    out.push({
      name,
      userUs: ((a.utime - b.utime) * TICK_US) / requests,
      sysUs: ((a.stime - b.stime) * TICK_US) / requests,
      voluntary: (a.voluntary - b.voluntary) / requests,
      involuntary: (a.involuntary - b.involuntary) / requests,
    });
  }
  return out.filter((t) => t.userUs + t.sysUs > 0.05 || t.voluntary > 0.001).sort((x, y) =>
    y.userUs + y.sysUs - (x.userUs + x.sysUs)
  );
}

/** Parses `strace -c` output into calls per syscall. */
export function parseStraceSummary(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of text.split("\n")) {
    // % time     seconds  usecs/call     calls    errors syscall
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?([a-z_0-9]+)\s*$/.exec(line);
    if (m && m[2] !== "total") calls.set(m[2]!, Number(m[1]));
  }
  return calls;
}

/** Options of {@linkcode measureBreakdown}. */
export interface BreakdownOptions {
  generator: LoadGenerator;
  seconds: number;
  connections: number;
  scratch: string;
  bodyFile: string;
  headersFile: string;
  log(line: string): void;
  /** Configurations (default: the ceiling, the honest ceiling, `dev --quiet` on both server stacks). */
  configs?: readonly BreakdownConfig[] | undefined;
  /** Appended to the configurations: (p) the Node/Express peer (bench/peer.ts), when its checkout is given. */
  peer?: BreakdownConfig;
  /** Also take a native profile of each server with `perf` (bench/native.ts), when it can run here. */
  native?: boolean;
  /** Count system calls with strace (default: when strace is installed). */
  syscalls?: boolean;
}

/** Runs each configuration twice: once for the threads' accounting, once under strace for the counts. */
export async function measureBreakdown(o: BreakdownOptions): Promise<Breakdown[]> {
  let configs: readonly BreakdownConfig[] = o.configs ?? [
    WRITE_CONFIGS.find((c) => c.key === "c")!,
    HONEST_CEILING,
    DEV,
    DEV_NODE_STACK,
  ];
  if (o.peer) configs = [...configs, o.peer];
  const results: Breakdown[] = [];
  for (const config of configs) {
    const dir = join(o.scratch, `breakdown-${results.length}`);
    const { server, port, load } = await startConfig(config, dir, o);
    let breakdown: Breakdown;
    let answered = 0;
    let stopped: { code: number; stderr: string };
    try {
      answered += (await load(1)).requests; // warm-up: JIT, pools
      const before = sampleThreads(server.pid);
      const result = await load(o.seconds);
      const after = sampleThreads(server.pid);
      answered += result.requests;
      breakdown = {
        label: config.label,
        rps: result.rps,
        requests: result.requests,
        threads: diff(before, after, result.requests),
        syscalls: [],
        perSync: NaN,
      };
      if (o.syscalls !== false && hasCommand("strace")) {
        const out = join(dir, "strace.txt");
        const tracer = new Deno.Command("strace", {
          args: ["-c", "-f", "-o", out, "-p", String(server.pid)],
          stdout: "null",
          stderr: "null",
        }).spawn();
        await new Promise((r) => setTimeout(r, 300));
        const traced = await load(Math.max(1, Math.min(2, o.seconds)));
        answered += traced.requests;
        tracer.kill("SIGINT");
        await tracer.status;
        const calls = parseStraceSummary(await Deno.readTextFile(out).catch(() => ""));
        const n = Math.max(1, traced.requests);
        breakdown.syscalls = [...calls].map(([k, v]) => [k, v / n] as [string, number])
          .filter(([, v]) => v >= 0.01).sort((x, y) => y[1] - x[1]);
        const syncs = (calls.get("fdatasync") ?? 0) + (calls.get("fsync") ?? 0);
        breakdown.perSync = syncs > 0 ? traced.requests / syncs : NaN;
      }
      if (o.native && nativeUnavailable() === undefined) {
        const data = join(dir, "perf.data");
        const perf = recordNative(server.pid, data);
        await new Promise((r) => setTimeout(r, 300));
        const sampled = await load(Math.max(1, Math.min(3, o.seconds)));
        answered += sampled.requests;
        await perf.stop();
        breakdown.native = await splitNative(config.label, data, Math.max(1, sampled.requests));
        const [traced] = await Promise.all([
          (async () => {
            await new Promise((r) => setTimeout(r, 300));
            return await traceBatches(config.label, server.pid, 1000);
          })(),
          load(2).then((r) => (answered += r.requests)),
        ]);
        breakdown.batches = traced;
      }
      await config.beforeStop?.(port, dir, answered);
    } finally {
      stopped = await server.stop();
    }
    // What the server stored is checked as on the write side, so the CPU is of real work.
    await config.verify?.(dir, stopped.stderr, stopped.code, answered);
    o.log(`  breakdown ${config.label}: ${breakdown.rps.toFixed(0)} req/s`);
    results.push(breakdown);
  }
  return results;
}

const BY_KEY: Record<string, BreakdownConfig> = {
  c: WRITE_CONFIGS.find((c) => c.key === "c")!,
  c2: HONEST_CEILING,
  b: DEV,
  node: DEV_NODE_STACK,
  "get-deno": DEV_GET_ON_DENO,
};

/**
 * The configurations named in `only` (comma-separated: `c`, `c2`, `b`, `node`, `get-deno`), in that order. With
 * `base` (a checkout's `main.ts`, e.g. the starting commit's), each `dev` configuration is preceded by the
 * same one run from that checkout, labelled "(base)", for a side-by-side run of two trees.
 */
export function chooseConfigs(only: string, base?: string): BreakdownConfig[] {
  const main = fileURLToPath(new URL("../main.ts", import.meta.url));
  if (base !== undefined) {
    try {
      if (!Deno.statSync(base).isFile) throw new Error("not a file");
    } catch {
      throw new Error(`--base: no file at ${base}; give another checkout's main.ts`);
    }
  }
  const out: BreakdownConfig[] = [];
  for (const key of only.split(",").map((k) => k.trim()).filter(Boolean)) {
    const config = BY_KEY[key];
    if (config === undefined) {
      throw new Error(`--only: unknown configuration "${key}"; use ${Object.keys(BY_KEY).join(", ")}`);
    }
    if (base !== undefined && (key === "b" || key === "node" || key === "get-deno")) {
      out.push({
        ...config,
        label: `${config.label} (base)`,
        // The other checkout imports its own modules as it needs them: it may read its src/ too.
        argv: (port, dir) =>
          config.argv(port, dir).flatMap((
            a,
          ) => (a === main ? [`--allow-read=${join(dirname(base), "src")}`, base] : [a])),
      });
    }
    out.push(config);
  }
  return out;
}

/** What each part of the honest ceiling adds: all threads' and the main thread's CPU per request, row by row. */
export function stepsReport(results: Breakdown[]): string {
  if (results.length === 0) return "";
  const all = (r: Breakdown) => r.threads.reduce((sum, t) => sum + t.userUs + t.sysUs, 0);
  const main = (r: Breakdown) => {
    const t = r.threads.find((x) => x.name.startsWith("main"));
    return t ? t.userUs + t.sysUs : NaN;
  };
  const lines = [
    "### What each part of the honest ceiling adds (µs of CPU per request)\n",
    "(c), then (c) with each part of (c2) added to the ones before (`bench/servers/honest.ts PORT FILE parts`), " +
    "then dev; each row's difference from the row above is what that part costs.\n",
    "| server | req/s | all threads | main thread | added by this row (all threads) |",
    "|---|---:|---:|---:|---:|",
  ];
  results.forEach((r, i) => {
    const d = i === 0 ? "" : f1(all(r) - all(results[i - 1]!));
    lines.push(`| ${r.label} | ${r.rps.toFixed(0)} | ${f1(all(r))} | ${f1(main(r))} | ${d} |`);
  });
  return lines.join("\n") + "\n";
}

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "–");
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–");

/** The breakdown as Markdown: per-thread CPU per request side by side, and the difference. */
export function breakdownReport(results: Breakdown[]): string {
  if (results.length === 0) return "";
  const names = [...new Set(results.flatMap((r) => r.threads.map((t) => t.name)))];
  const cost = (r: Breakdown, name: string) => r.threads.find((t) => t.name === name);
  const head = results.map((r) => r.label);
  const lines: string[] = [];
  lines.push("### Where a request's time goes on the server's core (µs of CPU per request, by thread)\n");
  lines.push(
    "Each thread's user and system time from `/proc/PID/task/*/stat` over one timed run, divided by the " +
      "requests answered; context switches per request from `/proc/.../status`. System calls per request " +
      "from a second run under `strace -c -f` (counts only).\n",
  );
  const found = results.findIndex((r) => r.label === DEV.label);
  const last = found === -1 ? results.length - 1 : found;
  const hasDiff = results.length >= 2;
  lines.push(
    `| thread | ${head.map((h) => `${h} user / sys`).join(" | ")}${
      hasDiff ? ` | ${results[last]!.label.split(" ")[0]} − ${results[0]!.label.split(" ")[0]}` : ""
    } |`,
  );
  lines.push(`|---|${head.map(() => "---:").join("|")}${hasDiff ? "|---:" : ""}|`);
  let totals = results.map(() => 0);
  for (const name of names) {
    const cells = results.map((r) => {
      const t = cost(r, name);
      return t ? `${f1(t.userUs)} / ${f1(t.sysUs)}` : "–";
    });
    totals = totals.map((sum, i) => {
      const t = cost(results[i]!, name);
      return sum + (t ? t.userUs + t.sysUs : 0);
    });
    const d = hasDiff
      ? (() => {
        const a = cost(results[0]!, name);
        const b = cost(results[last]!, name);
        return ` | ${f1((b ? b.userUs + b.sysUs : 0) - (a ? a.userUs + a.sysUs : 0))}`;
      })()
      : "";
    lines.push(`| ${name} | ${cells.join(" | ")}${d} |`);
  }
  lines.push(
    `| **all threads** | ${totals.map((t) => `**${f1(t)}**`).join(" | ")}${
      hasDiff ? ` | **${f1(totals[last]! - totals[0]!)}**` : ""
    } |`,
  );
  lines.push(
    `| req/s in this run | ${results.map((r) => r.rps.toFixed(0)).join(" | ")}${hasDiff ? " | " : ""} |`,
  );
  lines.push(
    `| core 0 busy (all threads × req/s) | ${
      results.map((r, i) => `${((totals[i]! * r.rps) / 1e4).toFixed(0)} %`).join(" | ")
    }${hasDiff ? " | " : ""} |`,
  );
  const sw = (r: Breakdown, k: "voluntary" | "involuntary") => r.threads.reduce((s, t) => s + t[k], 0);
  lines.push(
    `| context switches / req (voluntary, involuntary) | ${
      results.map((r) => `${f2(sw(r, "voluntary"))}, ${f2(sw(r, "involuntary"))}`).join(" | ")
    }${hasDiff ? " | " : ""} |`,
  );
  lines.push(
    `| requests per fdatasync (or fsync) | ${results.map((r) => f1(r.perSync)).join(" | ")}${
      hasDiff ? " | " : ""
    } |`,
  );
  const calls = [...new Set(results.flatMap((r) => r.syscalls.slice(0, 8).map(([k]) => k)))];
  for (const call of calls) {
    lines.push(
      `| syscall \`${call}\` / req | ${
        results.map((r) => f2(r.syscalls.find(([k]) => k === call)?.[1] ?? 0)).join(" | ")
      }${hasDiff ? " | " : ""} |`,
    );
  }
  const peer = results.findIndex((r) => r.label === PEER_LABEL);
  if (peer !== -1 && found !== -1) {
    const p = results[peer]!, b = results[found]!;
    lines.push(
      "",
      `The peer beside ${b.label}: ${f1(totals[peer]!)} against ${
        f1(totals[found]!)
      } µs of CPU per request ` +
        `(p/b = ${f2(totals[peer]! / totals[found]!)}×); req/s b/p = ${f2(b.rps / p.rps)} in this run.`,
    );
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  const { parseArgs } = await import("node:util");
  const { BODY, githubHeaders } = await import("./payload.ts");
  const { pickLoadGenerator } = await import("./load.ts");
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      seconds: { type: "string", default: "5" },
      smoke: { type: "boolean", default: false },
      "peer-dir": { type: "string" },
      only: { type: "string" },
      base: { type: "string" },
      steps: { type: "boolean", default: false },
    },
  });
  let chosen: BreakdownConfig[] | undefined;
  let usage: string | undefined;
  if (
    values.steps &&
    (values.only !== undefined || values.base !== undefined || values["peer-dir"] !== undefined)
  ) {
    usage =
      "--steps runs its own servers ((c), each part of (c2), dev): leave out --only, --base and --peer-dir.";
  } else {
    try {
      chosen = values.steps
        ? [WRITE_CONFIGS.find((c) => c.key === "c")!, ...honestSteps(), DEV]
        : values.only === undefined && values.base === undefined
        ? undefined
        : chooseConfigs(values.only ?? "c,c2,b,node", values.base);
    } catch (error) {
      usage = error instanceof Error ? error.message : String(error);
    }
  }
  if (usage !== undefined) {
    // deno-lint-ignore no-console
    console.error(usage);
    Deno.exitCode = 2; // only main.ts calls Deno.exit
  } else {
    const { peerDir, preparePeer, PEER_SKIPPED } = await import("./peer.ts");
    // deno-lint-ignore no-console
    const log = (l: string) => console.error(l);
    const scratch = await Deno.makeTempDir({ prefix: "hooktap_breakdown_" });
    try {
      const dir = peerDir(values["peer-dir"]);
      const peer = dir === undefined ? undefined : await preparePeer(dir, scratch, log);
      log(peer === undefined ? PEER_SKIPPED : `peer: ${peer.versions}, commit ${peer.commit}`);
      const bodyFile = join(scratch, "body.json");
      const headersFile = join(scratch, "headers.txt");
      await Deno.writeTextFile(bodyFile, BODY);
      await Deno.writeTextFile(headersFile, (await githubHeaders()).map(([k, v]) => `${k}: ${v}\n`).join(""));
      const results = await measureBreakdown({
        generator: pickLoadGenerator(),
        seconds: values.smoke ? 1 : Number(values.seconds),
        connections: 64,
        scratch,
        bodyFile,
        headersFile,
        log,
        ...(peer ? { peer: peer.config } : {}),
        native: !values.smoke && !values.steps,
        ...(values.steps ? { syscalls: false } : {}),
        configs: chosen,
      });
      // deno-lint-ignore no-console
      console.log(
        values.steps ? stepsReport(results) : breakdownReport(results) + "\n" +
          nativeReport(results.flatMap((r) => r.native ? [r.native] : []), nativeUnavailable()) + "\n" +
          batchesReport(results.flatMap((r) => r.batches ? [r.batches] : [])),
      );
    } finally {
      await Deno.remove(scratch, { recursive: true }).catch(() => {});
    }
  }
}
