/**
 * The load generator: wrk (Debian's package) when it is installed, else
 * autocannon from npm run by Deno. Both keep `connections` connections alive
 * and POST the benchmark body with its headers for `seconds`.
 * @module
 */
import { fileURLToPath } from "node:url";
import { hasCommand, onCore } from "./proc.ts";

/** Which load generator runs. */
export type LoadGenerator = "wrk" | "autocannon";

/** What one load run measured. */
export interface LoadResult {
  /** Responses completed during the run. */
  requests: number;
  /** Requests per second. */
  rps: number;
  /** Median latency, ms. */
  p50: number;
  /** 99th percentile latency, ms. */
  p99: number;
  /** Responses that were not 2xx, and socket errors/timeouts. */
  failures: number;
}

/** What to send and where. */
export interface LoadOptions {
  url: string;
  seconds: number;
  connections: number;
  /** CPU the generator is pinned to. */
  core: number;
  /** Files holding the body and the headers (`Name: value` lines). */
  bodyFile: string;
  headersFile: string;
}

const LUA = fileURLToPath(new URL("./post.lua", import.meta.url));
const AUTOCANNON = "npm:autocannon@8.0.0";

/** wrk when present, else autocannon; `BENCH_LOADGEN=autocannon` forces the fallback. */
export function pickLoadGenerator(): LoadGenerator {
  const forced = Deno.env.get("BENCH_LOADGEN");
  if (forced === "wrk" || forced === "autocannon") return forced;
  return hasCommand("wrk") ? "wrk" : "autocannon";
}

async function run(argv: string[], env: Record<string, string> = {}): Promise<string> {
  const [cmd, ...args] = argv;
  const out = await new Deno.Command(cmd!, { args, env, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  const stdout = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `${argv.join(" ")} failed (${out.code}):\n${stdout}${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return stdout;
}

const UNIT_MS: Record<string, number> = { us: 1e-3, ms: 1, s: 1000, m: 60_000 };

function wrkMs(text: string, percentile: string): number {
  const m = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(text);
  if (!m) throw new Error(`wrk printed no ${percentile}% latency:\n${text}`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** Runs wrk once and parses its summary. */
async function wrk(o: LoadOptions): Promise<LoadResult> {
  const text = await run(
    onCore(o.core, [
      "wrk",
      "-t1",
      `-c${o.connections}`,
      `-d${o.seconds}s`,
      "--timeout",
      "10s",
      "--latency",
      "-s",
      LUA,
      o.url,
    ]),
    { BENCH_BODY: o.bodyFile, BENCH_HEADERS: o.headersFile },
  );
  const requests = /^\s*(\d+) requests in/m.exec(text);
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(text);
  if (!requests || !rps) throw new Error(`cannot read wrk's output:\n${text}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = errors ? errors.slice(1).reduce((n, s) => n + Number(s), 0) : 0;
  return {
    requests: Number(requests[1]),
    rps: Number(rps[1]),
    p50: wrkMs(text, "50"),
    p99: wrkMs(text, "99"),
    failures: non2xx + socketErrors,
  };
}

/** Runs autocannon once (under Deno) and parses its JSON. */
async function autocannon(o: LoadOptions): Promise<LoadResult> {
  const headers = (await Deno.readTextFile(o.headersFile)).split("\n").filter((l) => l !== "");
  const text = await run(onCore(o.core, [
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    "--no-config", // never touch the project's deno.json or deno.lock
    "--no-lock",
    AUTOCANNON,
    "-c",
    String(o.connections),
    "-d",
    String(o.seconds),
    "-m",
    "POST",
    "-i",
    o.bodyFile,
    ...headers.flatMap((h) => ["-H", h]),
    "--json",
    o.url,
  ]));
  const r = JSON.parse(text);
  const requests = Number(r["2xx"]);
  return {
    requests,
    rps: requests / Number(r.duration),
    p50: Number(r.latency.p50),
    p99: Number(r.latency.p99),
    failures: Number(r.non2xx) + Number(r.errors) + Number(r.timeouts),
  };
}

/** One load run with the chosen generator. */
export function runLoad(generator: LoadGenerator, options: LoadOptions): Promise<LoadResult> {
  return generator === "wrk" ? wrk(options) : autocannon(options);
}
