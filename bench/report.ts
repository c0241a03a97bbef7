/**
 * The benchmark's report: the machine, the write-side and read-side tables
 * (medians with min–max) and each target of issue 5, met or missed.
 * @module
 */
import type { ExtraMeasure } from "./extra_stores.ts";
import type { ReadMeasure } from "./read_side.ts";
import { median, type Spread, spread } from "./stats.ts";
import type { WriteSideResults } from "./write_side.ts";
import { WRITE_CONFIGS, type WriteConfig } from "./write_side.ts";
import { PEER_LABEL, PEER_SKIPPED } from "./peer.ts";

/** Where and how the benchmark ran. */
export interface RunInfo {
  command: string;
  date: string;
  cpus: number;
  cpuModel: string;
  deno: string;
  loadGenerator: string;
  /** The run loads a server (write side, forwarding, hub, hostile inputs): say how. */
  loads: boolean;
  /** How (b) started hooktap. */
  devCommand: string;
  /** How (p) the Node/Express peer ran, or why it did not. */
  peer: string;
  pinned: boolean;
  connections: number;
  runs: number;
  seconds: number;
  events: number;
  storeBytes: number;
  coldEndpointMs: number | undefined;
}

const MB = (kib: number) => (kib * 1024) / 1e6;
const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
const range = (s: Spread, digits = 1) => `${f(s.median, digits)} (${f(s.min, digits)}–${f(s.max, digits)})`;
const verdict = (
  ok: boolean | undefined,
) => (ok === undefined ? "not measured" : ok ? "**met**" : "**missed**");

/** A table of the other stores (issues 9 and 15). */
export interface ExtraSection {
  title: string;
  rows: ExtraMeasure[];
}

/** The whole report as Markdown. */
export function report(
  info: RunInfo,
  write: WriteSideResults | undefined,
  read: ReadMeasure[] | undefined,
  extras: ExtraSection[] = [],
): string {
  const out: string[] = [];
  out.push(
    `- Command: \`${info.command}\``,
    `- Date: ${info.date}`,
    `- Machine: ${info.cpus} CPUs, ${info.cpuModel}; Deno ${info.deno}`,
  );
  if (info.loads) {
    out.push(
      `- Load generator: ${info.loadGenerator}, ${info.connections} keep-alive connections, ` +
        `${info.runs} run${info.runs === 1 ? "" : "s"} of ${info.seconds} s per configuration in turns; ` +
        (info.pinned
          ? "server on CPU 0, load generator on CPU 1 (taskset)"
          : "not pinned (no taskset or one CPU)"),
      `- (b) runs \`${info.devCommand}\` (the flags of \`deno task dev\`) in a fresh directory each run`,
      `- ${info.peer}`,
    );
  }
  out.push("");
  const targets: [string, boolean | undefined, string][] = [];
  let floorOfRun = NaN;
  if (write !== undefined) {
    out.push(
      "| Write side | req/s | p50 ms | p99 ms | peak RSS MB |",
      "|---|---:|---:|---:|---:|",
    );
    const med = new Map<string, { rps: number; p99: number; rss: number }>();
    const rows: { key: WriteConfig["key"]; label: string }[] = [...WRITE_CONFIGS, {
      key: "p",
      label: PEER_LABEL,
    }];
    for (const config of rows) {
      const r = write.get(config.key);
      if (r === undefined) continue;
      const rps = spread(r.runs.map((x) => x.rps));
      const p99 = spread(r.runs.map((x) => x.p99));
      const rss = Math.max(...r.peakRssKiB);
      med.set(config.key, { rps: rps.median, p99: p99.median, rss });
      out.push(
        `| ${config.label} | ${range(rps, 0)} | ${range(spread(r.runs.map((x) => x.p50)), 2)} | ${
          range(p99, 2)
        } | ${f(MB(rss), 0)} |`,
      );
    }
    const a = med.get("a"),
      b = med.get("b"),
      c = med.get("c"),
      bLog = med.get("b-log"),
      c2 = med.get("c2"),
      bNode = med.get("b-node"),
      bPlain = med.get("b-plain"),
      p = med.get("p");
    if (a && b && c) {
      const bc = b.rps / c.rps, ba = b.rps / a.rps, p99x = b.p99 / c.p99;
      out.push("");
      out.push(
        `Ratios of medians: **b/c = ${f(bc, 2)}**, **b/a = ${f(ba, 2)}**, c/a = ${f(c.rps / a.rps, 2)}, ` +
          `p99 b/c = ${f(p99x, 2)}` +
          (bLog ? `; with the request log, b/c = ${f(bLog.rps / c.rps, 2)}` : "") +
          (bPlain ? `; run as \`deno run -A\` (no V8 flag), b/c = ${f(bPlain.rps / c.rps, 2)}` : "") +
          (p ? `; **b/p = ${f(b.rps / p.rps, 2)}** (the Node/Express peer)` : "") +
          (c2
            ? `; **b/c2 = ${f(b.rps / c2.rps, 2)}** (the honest ceiling), p99 b/c2 = ${f(b.p99 / c2.p99, 2)}`
            : "") +
          (bNode
            ? `; node:http stack: b/c = ${f(bNode.rps / c.rps, 2)}` +
              (c2 ? `, b/c2 = ${f(bNode.rps / c2.rps, 2)}` : "") + `, p99 b/c = ${f(bNode.p99 / c.p99, 2)}`
            : ""),
      );
      targets.push(["dev: b/c ≥ 0.6, the durable ceiling (issue 36; moonshot 0.8)", bc >= 0.6, f(bc, 2)]);
      targets.push(["dev: b/c ≥ 0.8 (issue 15)", bc >= 0.8, f(bc, 2)]);
      targets.push(["dev: b/c ≥ 0.9 (issue 5)", bc >= 0.9, f(bc, 2)]);
      targets.push(["dev: p99 ≤ 2× the ceiling's", p99x <= 2, `${f(p99x, 2)}×`]);
      if (c2) {
        const bc2 = b.rps / c2.rps;
        targets.push(["dev: b/c2 ≥ 0.8, the honest ceiling (issue 29)", bc2 >= 0.8, f(bc2, 2)]);
        if (bNode) {
          const nc2 = bNode.rps / c2.rps;
          targets.push(["dev on node:http: b/c2 ≥ 0.8 (issue 29)", nc2 >= 0.8, f(nc2, 2)]);
        }
      }
      if (bNode) {
        const np99 = bNode.p99 / c.p99;
        targets.push(["dev on node:http: p99 ≤ 2× the ceiling's (issue 29)", np99 <= 2, `${f(np99, 2)}×`]);
      }
      targets.push(["dev: b/a ≥ 0.35 (long-term aim)", ba >= 0.35, f(ba, 2)]);
      const rss = Math.max(b.rss, bLog?.rss ?? 0);
      targets.push(["dev under load < 150 MB RSS", MB(rss) < 150, `${f(MB(rss), 0)} MB`]);
    }
    if (b) {
      targets.push(
        p
          ? ["dev: b/p ≥ 3, the Node/Express peer (issue 29)", b.rps / p.rps >= 3, f(b.rps / p.rps, 2)]
          : ["dev: b/p ≥ 3, the Node/Express peer (issue 29)", undefined, PEER_SKIPPED],
      );
    }
    out.push("");
  }
  if (read !== undefined) {
    out.push(
      `Read side on ${info.events.toLocaleString("en-US")} events (${f(info.storeBytes / 1e9, 2)} GB):`,
      "",
      "| Command | wall ms | over floor ms | target over floor | peak RSS MB |",
      "|---|---:|---:|---:|---:|",
    );
    const floor = read.find((m) => m.key === "floor");
    const floorMs = floor && floor.timing !== "missing" ? median(floor.timing.ms) : NaN;
    floorOfRun = floorMs;
    const limits: Partial<Record<ReadMeasure["key"], number>> = {
      help: 20,
      logs: 20,
      "complete-endpoint": 20,
      "complete-id": 20,
      "inspect-id": 40,
      replay: 40,
      "inspect-endpoint": 100,
    };
    let readRss = 0;
    for (const m of read) {
      if (m.timing === "missing") {
        out.push(`| ${m.label} | not in this hooktap yet | | | |`);
        targets.push([`${m.label}: within ${limits[m.key]} ms of the floor`, undefined, "command missing"]);
        continue;
      }
      const ms = spread(m.timing.ms);
      const rss = Math.max(...m.timing.peakRssKiB);
      const over = ms.median - floorMs;
      const limit = limits[m.key];
      out.push(
        `| ${m.label} | ${range(ms)} | ${m.key === "floor" ? "" : f(over)} | ${
          limit === undefined ? "" : `≤ ${limit}`
        } | ${f(MB(rss), 0)} |`,
      );
      if (limit !== undefined) {
        targets.push([`${m.label}: within ${limit} ms of the floor`, over <= limit, `+${f(over)} ms`]);
      }
      if (m.key !== "floor" && m.key !== "help") readRss = Math.max(readRss, rss);
    }
    if (info.coldEndpointMs !== undefined) {
      out.push(
        "",
        `\`inspect --endpoint\` once without \`.hooktap/index.json\` (the reader scans): ${
          f(info.coldEndpointMs, 0)
        } ms.`,
      );
    }
    if (read.some((m) => m.key !== "floor" && m.key !== "help" && m.timing !== "missing")) {
      const known = Number.isFinite(readRss);
      targets.push([
        "read commands < 80 MB RSS",
        known ? MB(readRss) < 80 : undefined,
        known ? `${f(MB(readRss), 0)} MB` : "no /usr/bin/time (apt-get install time)",
      ]);
    }
    out.push("");
  }
  for (const section of extras) {
    out.push(section.title, "", "| Command | wall ms | over floor ms | target over floor | peak RSS MB |");
    out.push("|---|---:|---:|---:|---:|");
    for (const row of section.rows) {
      const ms = spread(row.timing.ms);
      const over = ms.median - floorOfRun;
      const rss = Math.max(...row.timing.peakRssKiB);
      const target = row.limitMs === undefined ? "" : `≤ ${row.limitMs}`;
      out.push(`| ${row.label} | ${range(ms)} | ${f(over)} | ${target} | ${f(MB(rss), 0)} |`);
      if (row.limitMs !== undefined) {
        targets.push([
          `${row.label}: within ${row.limitMs} ms of the floor`,
          over <= row.limitMs,
          `+${f(over)} ms`,
        ]);
      }
    }
    out.push("");
  }
  if (targets.length > 0) {
    out.push("| Target | Result | Measured |", "|---|---|---|");
    for (const [name, ok, measured] of targets) out.push(`| ${name} | ${verdict(ok)} | ${measured} |`);
  }
  return out.join("\n") + "\n";
}
