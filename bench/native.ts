/**
 * A native profile of a running server: `perf record` (Debian's `perf`,
 * software clock sampling, every thread of the process) during a short load,
 * then `perf report` split by where the time went, in µs of CPU per request:
 * the kernel (by system call family), the `deno` binary itself split by
 * whether JavaScript is on the sample's stack (V8's builtins and runtime
 * working for JS: JSON, strings, promises, GC) or not (Rust: tokio, hyper,
 * the ops), libc (malloc, memcpy), and JIT-compiled JavaScript (code outside
 * every mapped file). The `deno` binary from npm carries no symbols but
 * keeps frame pointers, so stacks unwind; JavaScript's own split by function
 * is `bench/profile.ts`'s job.
 *
 * It needs `perf` and `kernel.perf_event_paranoid` ≤ 1 (or root) for kernel
 * samples; without either the section says why and is skipped.
 * @module
 */
import { hasCommand } from "./proc.ts";

/** Samples per second of CPU. */
const HZ = 1999;

/** µs of CPU per request in each part. */
export interface NativeSplit {
  label: string;
  parts: Map<string, number>;
  samples: number;
}

/** Kernel symbols, inclusive, that name a kind of work: the first match of each sample's line wins. */
const KERNEL_GROUPS: [string, RegExp][] = [
  ["kernel: TCP send (sendto, loopback delivery)", /^(__x64_sys_sendto|__x64_sys_writev|__x64_sys_write)$/],
  ["kernel: TCP receive (recvfrom)", /^(__x64_sys_recvfrom|__x64_sys_readv|__x64_sys_read)$/],
  ["kernel: file write + fdatasync", /^(__x64_sys_fdatasync|__x64_sys_pwrite64)$/],
  ["kernel: epoll_wait and futex (waiting, waking threads)", /^(__x64_sys_epoll_wait|__x64_sys_futex)$/],
];

/** Why a native profile cannot be taken here, or `undefined` when it can. */
export function nativeUnavailable(): string | undefined {
  if (!hasCommand("perf")) return "perf is not installed (Debian: apt-get install linux-perf)";
  try {
    const paranoid = Number(Deno.readTextFileSync("/proc/sys/kernel/perf_event_paranoid").trim());
    if (paranoid > 1 && Deno.uid() !== 0) {
      return `kernel.perf_event_paranoid is ${paranoid} (needs ≤ 1 for kernel samples, or root)`;
    }
  } catch {
    return "cannot read /proc/sys/kernel/perf_event_paranoid";
  }
  return undefined;
}

/** Starts `perf record` on `pid`; `stop()` ends it and returns the data file. */
export function recordNative(pid: number, file: string): { stop(): Promise<void> } {
  const child = new Deno.Command("perf", {
    args: ["record", "-e", "cpu-clock", "-F", String(HZ), "-g", "-p", String(pid), "-o", file],
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    async stop() {
      child.kill("SIGINT");
      await child.status;
    },
  };
}

async function report(file: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("perf", {
    args: ["report", "-i", file, "--stdio", "-g", "none", ...args],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Where a sample's stack says its time went. */
function _category(comm: string, frames: string[]): string {
  if (comm.startsWith("V8 ")) return V8_WORKERS;
  if (comm.startsWith("tokio-")) return TOKIO;
  const leaf = frames[0] ?? "";
  const isDeno = (dso: string) => dso === "deno" || dso.endsWith("/deno");
  const isJit = (dso: string) => dso === "[unknown]" || dso.startsWith("/tmp/perf-") || dso.includes("anon");
  if (leaf === "[kernel.kallsyms]") return KERNEL;
  if (leaf.startsWith("/") && leaf.includes("/libc.so")) return LIBC;
  if (isDeno(leaf)) return frames.some(isJit) ? V8_UNDER_JS : RUST;
  if (leaf === "node" || leaf.endsWith("/node")) return NODE;
  if (isJit(leaf)) return JIT;
  return OTHER;
}

const V8_WORKERS = "V8 worker threads (GC, compiler), all of their time";
const TOKIO = "tokio worker threads (file write, fdatasync), all of their time";
const RUST = "deno binary, no JavaScript on the stack (Rust: tokio, hyper, ops; V8 between calls)";
const V8_UNDER_JS = "deno binary under JavaScript (V8 builtins and runtime: JSON, strings, promises, GC)";
const JIT = "JIT-compiled JavaScript";
const LIBC = "libc (malloc, free, memcpy)";
const NODE = "node binary";
const KERNEL = "kernel, on the main thread";
const OTHER = "other";

/** Reads the samples of `file` into µs per request for `requests` answered while it recorded. */
export async function splitNative(label: string, file: string, requests: number): Promise<NativeSplit> {
  const parts = new Map<string, number>();
  const perRequest = (samples: number) => (samples / HZ) * 1e6 / requests;
  const counts = new Map<string, number>();
  let total = 0;
  // Each sample: a "tid" line, then one "\tADDR (dso)" line per frame, leaf first, then a blank line.
  const script = await new Deno.Command("perf", {
    args: ["script", "-i", file, "-F", "comm,tid,ip,dso"],
    stdout: "piped",
    stderr: "null",
  }).output();
  let frames: string[] = [];
  let comm = "";
  const flush = () => {
    if (frames.length === 0) return;
    const k = _category(comm, frames);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    total++;
    frames = [];
  };
  for (const line of new TextDecoder().decode(script.stdout).split("\n")) {
    if (line.startsWith("\t")) {
      const m = /\((.*)\)\s*$/.exec(line);
      frames.push(m?.[1] ?? "[unknown]");
    } else {
      flush();
      // "comm tid": the thread's name may hold spaces ("V8 DefaultWorke").
      comm = line.replace(/\s+\d+\s*$/, "");
    }
  }
  flush();
  for (const [k, n] of counts) parts.set(k, perRequest(n));
  // The kernel's share by kind of work (inclusive samples of the system calls). Lines read "children% self% [k] symbol".
  const kernel = await report(file, ["--children", "--sort", "sym"]);
  for (const line of kernel.split("\n")) {
    const m = /^\s*([\d.]+)%\s+[\d.]+%\s+\[k\]\s+(\S+)/.exec(line);
    if (m === null) continue;
    const group = KERNEL_GROUPS.find(([, re]) => re.test(m[2]!));
    if (group !== undefined) {
      parts.set(group[0], (parts.get(group[0]) ?? 0) + perRequest((Number(m[1]) / 100) * total));
    }
  }
  return { label, parts, samples: total };
}

/** The native split side by side, as Markdown. */
export function nativeReport(results: NativeSplit[], why?: string): string {
  if (why !== undefined) return `### Native profile: skipped (${why})\n`;
  if (results.length === 0) return "";
  const keys = [
    TOKIO,
    V8_WORKERS,
    RUST,
    V8_UNDER_JS,
    JIT,
    LIBC,
    NODE,
    OTHER,
    KERNEL,
    ...KERNEL_GROUPS.map(([k]) => k),
  ].filter((k) => results.some((r) => r.parts.has(k)));
  const lines = [
    "### Native profile (µs of CPU per request, every thread, from `perf record -e cpu-clock -g`)\n",
    "A third run of each server under `perf`; the `kernel:` lines are system calls with what they set off, on every thread (inclusive) " +
    "(a system call and what it set off). Sampling slows the servers: compare the columns, not the totals " +
    "with the table above.\n",
    `| part | ${results.map((r) => r.label).join(" | ")} |`,
    `|---|${results.map(() => "---:").join("|")}|`,
  ];
  for (const k of keys) {
    lines.push(
      `| ${k} | ${results.map((r) => r.parts.has(k) ? r.parts.get(k)!.toFixed(1) : "–").join(" | ")} |`,
    );
  }
  return lines.join("\n") + "\n";
}
