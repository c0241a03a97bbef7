/**
 * Timing a command-line run: wall time from spawn to exit, repeated, with
 * the peak resident memory of each run from GNU time (`/usr/bin/time`) when
 * it is installed. Every run must exit 0.
 * @module
 */
import { join } from "node:path";
import { hasCommand } from "./proc.ts";

const GNU_TIME = "/usr/bin/time";
const HAS_TIME = hasCommand(GNU_TIME);

/** What one run printed. */
export interface RunOutput {
  stdout: string;
  stderr: string;
}

/** Wall times (ms) and peak RSS (KiB, NaN when unknown) of the measured runs. */
export interface CommandTiming {
  ms: number[];
  peakRssKiB: number[];
}

/** Options of {@linkcode timeCommand}. */
export interface TimeOptions {
  cwd: string;
  /** Measured runs. */
  runs: number;
  /** Unmeasured runs before them. @default 1 */
  warmup?: number;
  /** Scratch directory for GNU time's output. */
  scratch: string;
  /** Checks the first run's output; throws when the command did not do its job. */
  check?: ((out: RunOutput) => void | Promise<void>) | undefined;
}

const decoder = new TextDecoder();

/** Runs `argv` once; resolves to its wall time, peak RSS and output. */
export async function runOnce(
  argv: string[],
  cwd: string,
  scratch: string,
): Promise<{ ms: number; rssKiB: number } & RunOutput> {
  const rssFile = join(scratch, "time.out");
  const full = HAS_TIME ? [GNU_TIME, "-f", "%M", "-o", rssFile, ...argv] : argv;
  const started = performance.now();
  const out = await new Deno.Command(full[0]!, {
    args: full.slice(1),
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - started;
  const stdout = decoder.decode(out.stdout);
  const stderr = decoder.decode(out.stderr);
  if (!out.success) throw new Error(`\`${argv.join(" ")}\` exited ${out.code}:\n${stdout}${stderr}`);
  let rssKiB = NaN;
  if (HAS_TIME) rssKiB = Number((await Deno.readTextFile(rssFile)).trim().split("\n").at(-1));
  return { ms, rssKiB, stdout, stderr };
}

/** Runs `argv` `warmup` + `runs` times and keeps the measured runs. */
export async function timeCommand(argv: string[], o: TimeOptions): Promise<CommandTiming> {
  const result: CommandTiming = { ms: [], peakRssKiB: [] };
  const warmup = o.warmup ?? 1;
  for (let i = 0; i < warmup + o.runs; i++) {
    const run = await runOnce(argv, o.cwd, o.scratch);
    if (i === 0) await o.check?.(run);
    if (i >= warmup) {
      result.ms.push(run.ms);
      result.peakRssKiB.push(run.rssKiB);
    }
  }
  return result;
}
