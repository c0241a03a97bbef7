/**
 * The store at any size (issue 14): search, count, export and prune on the
 * generated store, each with its wall time and peak memory beside its
 * target. `prune` runs on a copy of the store (the original is reused by
 * the other measurements and later runs).
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import type { StoreMeta } from "./store_gen.ts";
import { runOnce, type RunOutput } from "./timing.ts";
import { median } from "./stats.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const MAIN = here("../main.ts");
const DENO = Deno.execPath();
const hooktap = (...args: string[]) => [DENO, "run", "-A", MAIN, ...args];

/** One measured command. */
export interface StoreMeasure {
  label: string;
  ms: number;
  peakMiB: number;
  /** MB/s of log read, for whole-log commands. */
  mbps?: number;
  target: string;
  met: boolean;
}

/** Options of {@linkcode measureStoreSide}. */
export interface StoreSideOptions {
  dir: string;
  meta: StoreMeta;
  runs: number;
  scratch: string;
  log?: (line: string) => void;
}

function must(what: string, ok: boolean, out: RunOutput): void {
  if (!ok) throw new Error(`${what} did not do its job:\n${out.stdout.slice(0, 1000)}${out.stderr}`);
}

async function _time(
  argv: string[],
  cwd: string,
  o: StoreSideOptions,
  check: (out: RunOutput) => void,
  before?: () => Promise<void>,
): Promise<{ ms: number; peakMiB: number }> {
  const ms: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < o.runs; i++) {
    await before?.();
    const run = await runOnce(argv, cwd, o.scratch);
    if (i === 0) check(run);
    ms.push(run.ms);
    rss.push(run.rssKiB / 1024);
  }
  return { ms: median(ms), peakMiB: Math.max(...rss) };
}

/** Measures search, count, export and prune on the store in `o.dir`. */
export async function measureStoreSide(o: StoreSideOptions): Promise<StoreMeasure[]> {
  const { dir, meta } = o;
  const mb = meta.bytes / 1e6;
  const out: StoreMeasure[] = [];
  const floor = await _time([DENO, "run", "-A", here("./empty.ts")], dir, o, () => {});
  const add = (m: StoreMeasure) => {
    out.push(m);
    o.log?.(
      `  ${m.label.padEnd(44)} ${m.ms.toFixed(0)} ms, ${m.peakMiB.toFixed(0)} MiB${
        m.mbps ? `, ${m.mbps.toFixed(0)} MB/s` : ""
      }`,
    );
  };
  const near = await _time(
    hooktap("logs", "--grep", "monalisa"),
    dir,
    o,
    (r) => must("logs --grep (newest)", r.stdout.trim().split("\n").length === 20, r),
  );
  add({
    label: "logs --grep monalisa (newest 20 matches)",
    ...near,
    target: `≤ floor + 100 ms (${(floor.ms + 100).toFixed(0)} ms), < 80 MiB`,
    met: near.ms <= floor.ms + 100 && near.peakMiB < 80,
  });
  const rare = await _time(
    hooktap("logs", "--grep", "legacy-billing"),
    dir,
    o,
    (r) =>
      must(
        "logs --grep (rare)",
        r.stdout.includes(meta.earlyEndpointId.slice(0, 20)) || r.stdout.includes("legacy"),
        r,
      ),
  );
  add({
    label: "logs --grep legacy-billing (one, at the start)",
    ...rare,
    mbps: mb / (Math.max(1, rare.ms - floor.ms) / 1000),
    target: "< 80 MiB",
    met: rare.peakMiB < 80,
  });
  for (
    const args of [["--count"], ["--count", "--grep", "monalisa"], ["--count", "--where", "action=opened"]]
  ) {
    const t = await _time(
      hooktap("logs", ...args),
      dir,
      o,
      (r) => must("logs --count", /^\d+\n$/.test(r.stdout), r),
    );
    const mbps = mb / (Math.max(1, t.ms - floor.ms) / 1000);
    add({
      label: `logs ${args.join(" ")}`,
      ...t,
      mbps,
      target: "≥ 300 MB/s, < 80 MiB",
      met: mbps >= 300 && t.peakMiB < 80,
    });
  }
  const har = await _time(
    hooktap("export", "--format", "har", "-n", "1000"),
    dir,
    o,
    (r) => must("export har", JSON.parse(r.stdout).log.entries.length === 1000, r),
  );
  add({ label: "export --format har -n 1000", ...har, target: "< 80 MiB", met: har.peakMiB < 80 });
  // prune on a copy of the store, fresh for every run.
  const copy = join(o.scratch, "prune-copy");
  const fresh = async () => {
    await Deno.remove(copy, { recursive: true }).catch(() => {});
    await Deno.mkdir(join(copy, ".hooktap"), { recursive: true });
    await Deno.copyFile(join(dir, ".hooktap/events.jsonl"), join(copy, ".hooktap/events.jsonl"));
  };
  const keep = Math.min(100_000, Math.floor(meta.count / 10));
  try {
    const prune = await _time(
      hooktap("prune", "--keep", String(keep)),
      copy,
      { ...o, runs: Math.min(o.runs, 3) },
      (r) =>
        must(
          "prune",
          r.stdout.startsWith(`${keep.toLocaleString("en-US")} events kept`) ||
            r.stdout.startsWith(`${keep} events kept`),
          r,
        ),
      fresh,
    );
    const mbps = mb / (Math.max(1, prune.ms - floor.ms) / 1000);
    add({
      label: `prune --keep ${keep} (a copy)`,
      ...prune,
      mbps,
      target: "≥ 300 MB/s of log, < 80 MiB",
      met: mbps >= 300 && prune.peakMiB < 80,
    });
  } finally {
    await Deno.remove(copy, { recursive: true }).catch(() => {});
  }
  add({ label: "deno run empty.ts (floor)", ...floor, target: "", met: true });
  return out;
}

/** The Markdown section of the report. */
export function storeSideReport(measures: readonly StoreMeasure[], bytes: number): string {
  const rows = measures.map((m) =>
    `| ${m.label} | ${m.ms.toFixed(0)} | ${m.mbps === undefined ? "" : m.mbps.toFixed(0)} | ${
      m.peakMiB.toFixed(0)
    } | ${m.target} | ${m.target === "" ? "" : m.met ? "met" : "**missed**"} |`
  );
  return [
    "",
    `### The store at any size (${(bytes / 1e9).toFixed(2)} GB log)`,
    "",
    "MB/s counts the whole log's bytes over the time above the start-up floor.",
    "",
    "| command | median ms | MB/s | peak MiB | target | |",
    "|---|---:|---:|---:|---|---|",
    ...rows,
    "",
  ].join("\n");
}
