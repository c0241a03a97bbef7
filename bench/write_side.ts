/**
 * The write side: (a) bare `Deno.serve`, (c) the durable ceiling and (b)
 * `hooktap dev` as users run it, measured in turns (a, c, b, b with its
 * request log, then again) so that drift on a noisy machine hits all alike;
 * (p) the Node/Express peer joins each turn when its checkout is given
 * (bench/peer.ts). Each turn starts its server afresh on core 0, warms it up, then loads it
 * from core 1.
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { parseEventLine } from "../src/event/record.ts";
import { type LoadGenerator, type LoadOptions, type LoadResult, runLoad } from "./load.ts";
import { BODY, githubHeaders } from "./payload.ts";
import { freePort, onCore, type Server, startServer } from "./proc.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const MAIN = here("../main.ts");
const DENO = Deno.execPath();
/**
 * The `deno run` flags of `deno task dev` (deno.json), so that (b) runs
 * hooktap as the project tells users to: `--allow-net --allow-read=.
 * --allow-write=.hooktap`, plus any `--v8-flags` the task adds.
 */
export function devFlags(): string[] {
  const deno = JSON.parse(Deno.readTextFileSync(here("../deno.json")));
  const task = deno.tasks?.dev;
  const command: string = typeof task === "string" ? task : task?.command ?? "";
  const words = command.split(/\s+/);
  const start = words.indexOf("run") + 1;
  const end = words.findIndex((w) => w.endsWith("main.ts"));
  if (start === 0 || end < start) throw new Error(`cannot read the flags of \`deno task dev\`: ${command}`);
  // Run from a scratch directory, dev also reads hooktap's own modules, imported as it needs them
  // (src/cli/lazy.ts): `deno task dev` runs from the checkout, where `.` covers them.
  return [...words.slice(start, end), `--allow-read=${here("../src")}`];
}
const DEV_FLAGS = devFlags();

/** The config file every server finds unless its configuration gives another: one POST endpoint. */
export const POST_ONLY_CONFIG =
  `export default { port: 8787, endpoints: [{ name: "github", path: "/webhook", method: "POST" }] };\n`;

/** {@linkcode POST_ONLY_CONFIG} with a GET endpoint beside it (the config that used to pick node:http). */
export const WITH_GET_CONFIG = `export default { port: 8787, endpoints: [` +
  `{ name: "github", path: "/webhook", method: "POST" }, { name: "meta", path: "/meta", method: "GET" }] };\n`;

/** A server configuration of the write side. */
export interface WriteConfig {
  key: "a" | "c" | "c2" | "b" | "b-node" | "b-log" | "b-plain" | "p";
  label: string;
  /** The config file the server finds (default: one POST endpoint). */
  configText?: string;
  argv(port: number, dir: string): string[];
  /** Checks the live server after the load (it has answered `requests`); throws when the part is broken. */
  beforeStop?(port: number, dir: string, requests: number): Promise<void>;
  /** Checks what the run left behind; throws when the part is broken. */
  verify?(dir: string, stderr: string, code: number, requests: number): Promise<void>;
}

/** Lines (newlines) in a file. */
async function countLines(path: string): Promise<number> {
  using file = await Deno.open(path);
  const chunk = new Uint8Array(1 << 20);
  let lines = 0;
  for (let n = await file.read(chunk); n !== null; n = await file.read(chunk)) {
    for (let i = chunk.indexOf(10); i !== -1 && i < n; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return lines;
}

async function verifyDev(dir: string, stderr: string, code: number, requests: number): Promise<void> {
  if (code !== 0) throw new Error(`hooktap dev exited ${code}:\n${stderr}`);
  const captured = await countLines(join(dir, ".hooktap/events.jsonl"));
  if (!(captured >= requests)) {
    throw new Error(`hooktap dev answered ${requests} requests but stored ${captured} lines:\n${stderr}`);
  }
  const file = await Deno.open(join(dir, ".hooktap/events.jsonl"));
  const size = (await file.stat()).size;
  const tail = new Uint8Array(Math.min(size, 16_384));
  await file.seek(size - tail.length, Deno.SeekMode.Start);
  for (let got = 0; got < tail.length;) {
    const n = await file.read(tail.subarray(got));
    if (n === null) break;
    got += n;
  }
  file.close();
  const lines = new TextDecoder().decode(tail).split("\n");
  const last = parseEventLine(lines.at(-2) ?? "");
  if (lines.at(-1) !== "" || last === undefined || last.body !== BODY || last.bodySize !== BODY.length) {
    throw new Error(`the last line hooktap dev stored is not the record of the request sent`);
  }
}

/** The configurations, in the order of a turn. */
export const WRITE_CONFIGS: readonly WriteConfig[] = [
  {
    key: "a",
    label: "(a) bare Deno.serve",
    argv: (port) => [DENO, "run", "--allow-net", here("./servers/bare.ts"), String(port)],
  },
  {
    key: "c",
    label: "(c) durable ceiling",
    argv: (port, dir) => [
      DENO,
      "run",
      "--allow-net",
      `--allow-write=${dir}`,
      here("./servers/ceiling.ts"),
      String(port),
      join(dir, "ceiling.jsonl"),
    ],
  },
  {
    key: "c2",
    label: "(c2) honest ceiling",
    argv: (port, dir) => [
      DENO,
      "run",
      "--allow-net",
      `--allow-write=${dir}`,
      here("./servers/honest.ts"),
      String(port),
      join(dir, "honest.jsonl"),
    ],
  },
  {
    key: "b",
    label: "(b) hooktap dev --quiet",
    argv: (port) => [DENO, "run", ...DEV_FLAGS, MAIN, "dev", "--quiet", "--port", String(port)],
    verify: verifyDev,
  },
  {
    // The node:http stack, which a user asks for with HOOKTAP_STACK=node (raw header case, its timeouts);
    // a config with a GET endpoint chose it by itself before Deno.serve read GET bodies (issue 29).
    key: "b-node",
    label: "(b) --quiet, node:http stack (HOOKTAP_STACK=node)",
    argv: (
      port,
    ) => [
      "env",
      "HOOKTAP_STACK=node",
      DENO,
      "run",
      ...DEV_FLAGS,
      MAIN,
      "dev",
      "--quiet",
      "--port",
      String(port),
    ],
    verify: verifyDev,
    configText: WITH_GET_CONFIG,
  },
  {
    key: "b-log",
    label: "(b) hooktap dev, log to /dev/null",
    argv: (port) => [DENO, "run", ...DEV_FLAGS, MAIN, "dev", "--port", String(port)],
    verify: verifyDev,
  },
  {
    // How `deno run -A jsr:@hooktap/hooktap dev` runs it: no least-privilege
    // flags and no V8 flag, so V8's default young generation (more memory).
    key: "b-plain",
    label: "(b) --quiet, run as `deno run -A` (no V8 flag)",
    argv: (port) => [DENO, "run", "-A", MAIN, "dev", "--quiet", "--port", String(port)],
    verify: verifyDev,
  },
];

/** A configuration's server, started and listening, and a load of it. */
export interface Running {
  server: Server;
  port: number;
  /** Loads it from core 1 for `seconds`. */
  load(seconds: number): Promise<LoadResult>;
}

/**
 * Starts `config` in `dir` (emptied first, its config file written) pinned
 * to core 0, and waits until it listens; `load` sends the benchmark's
 * request from core 1.
 */
export async function startConfig(
  config: WriteConfig,
  dir: string,
  load: Pick<LoadOptions, "connections" | "bodyFile" | "headersFile"> & { generator: LoadGenerator },
): Promise<Running> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "hooktap.config.ts"), config.configText ?? POST_ONLY_CONFIG);
  const port = freePort();
  const server = await startServer(onCore(0, config.argv(port, dir)), { cwd: dir, port });
  return {
    server,
    port,
    load: (seconds) =>
      runLoad(load.generator, {
        url: `http://127.0.0.1:${port}/webhook`,
        seconds,
        connections: load.connections,
        core: 1,
        bodyFile: load.bodyFile,
        headersFile: load.headersFile,
      }),
  };
}

/** Options of {@linkcode measureWriteSide}. */
export interface WriteSideOptions {
  generator: LoadGenerator;
  /** Turns (runs per configuration). */
  runs: number;
  /** Seconds of load per run, and of warm-up before it (0: none). */
  seconds: number;
  warmupSeconds: number;
  connections: number;
  /** Scratch directory for the servers' files; emptied per turn. */
  scratch: string;
  configs?: readonly WriteConfig[];
  log?: (line: string) => void;
}

/** Per configuration: each run's load result, and the server's peak RSS per run (KiB). */
export type WriteSideResults = Map<WriteConfig["key"], { runs: LoadResult[]; peakRssKiB: number[] }>;

/** Measures every configuration `runs` times, in turns. */
export async function measureWriteSide(o: WriteSideOptions): Promise<WriteSideResults> {
  const configs = o.configs ?? WRITE_CONFIGS;
  const bodyFile = join(o.scratch, "body.json");
  const headersFile = join(o.scratch, "headers.txt");
  await Deno.mkdir(o.scratch, { recursive: true });
  await Deno.writeTextFile(bodyFile, BODY);
  await Deno.writeTextFile(headersFile, (await githubHeaders()).map(([k, v]) => `${k}: ${v}\n`).join(""));
  const results: WriteSideResults = new Map(configs.map((c) => [c.key, { runs: [], peakRssKiB: [] }]));

  for (let turn = 1; turn <= o.runs; turn++) {
    for (const config of configs) {
      const dir = join(o.scratch, config.key);
      const { server, port, load } = await startConfig(config, dir, {
        generator: o.generator,
        connections: o.connections,
        bodyFile,
        headersFile,
      });
      let result: LoadResult, warm: LoadResult | undefined, rss: number;
      let stopped: { code: number; stderr: string } | undefined;
      try {
        if (o.warmupSeconds > 0) warm = await load(o.warmupSeconds);
        result = await load(o.seconds);
        rss = server.peakRssKiB();
        await config.beforeStop?.(port, dir, result.requests + (warm?.requests ?? 0));
      } finally {
        stopped = await server.stop();
      }
      const { code, stderr } = stopped;
      const answered = result.requests + (warm?.requests ?? 0);
      if (result.failures > 0 || (warm?.failures ?? 0) > 0 || result.requests === 0) {
        throw new Error(
          `${config.label}: ${result.failures} failed requests of ${result.requests}\n${stderr}`,
        );
      }
      await config.verify?.(dir, stderr, code, answered);
      await Deno.remove(dir, { recursive: true });
      const r = results.get(config.key)!;
      r.runs.push(result);
      r.peakRssKiB.push(rss);
      o.log?.(
        `  turn ${turn}/${o.runs} ${config.label.padEnd(36)} ${result.rps.toFixed(0).padStart(7)} req/s` +
          `  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  rss ${
            (rss / 1024).toFixed(0)
          } MiB`,
      );
    }
  }
  return results;
}
