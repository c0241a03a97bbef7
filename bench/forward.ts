/**
 * Forwarding in the benchmark (issue 10): the delay a forwarded event adds
 * between the sender's request and the app receiving it (queue and relay,
 * beside the sender calling the app directly), and `dev`'s throughput with
 * `--forward-to` (queue) beside without.
 * @module
 */
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { type LoadGenerator, type LoadResult, pickLoadGenerator, runLoad } from "./load.ts";
import { freePort, onCore, PINNED, type Server, startServer } from "./proc.ts";
import { BODY, githubHeaders } from "./payload.ts";
import { devFlags } from "./write_side.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const BARE = fileURLToPath(new URL("./servers/bare.ts", import.meta.url));
/** Another checkout's main.ts to measure beside this one in the same run (the "before" of a change). */
const BASELINE = Deno.env.get("BENCH_FORWARD_BASELINE");

/** One throughput round: req/s without and with forwarding, and how far delivery kept up. */
export interface Round {
  without: number;
  with: number;
  /** Share of the stored events already delivered when the load stopped. */
  atEnd: number;
  /** Seconds the rest took to deliver. */
  drainS: number;
  /** dev's CPU µs per event (user + system): receiving only, and receiving + delivering (drain included). */
  cpuWithout: number;
  cpuWith: number;
}

/** What was measured. */
export interface ForwardMeasure {
  samples: number;
  /** Seconds of each load run. */
  seconds: number;
  direct: { p50: number; p99: number };
  queue: { p50: number; p99: number };
  relay: { p50: number; p99: number };
  /**
   * What storing costs the sender, p50 ms: dev's answer in queue mode (after the event's fdatasync) minus the
   * direct round trip, measured on the same samples as the queue delay.
   */
  syncP50: number;
  /** Throughput rounds: [without, with] req/s per round, run in turns. */
  rounds: Round[];
  /** BENCH_FORWARD_BASELINE's queue-mode delay, when given. */
  baselineQueue?: { p50: number; p99: number };
  /** The same rounds for BENCH_FORWARD_BASELINE's checkout, when given. */
  baselineRounds?: Round[];
  /** Events delivered to the app by the end of the forwarding run (of those stored). */
  delivered: number;
  stored: number;
}

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** An in-process app that notes when each request arrives (same clock as the sender). */
function arrivalApp(): { port: number; next(): Promise<number>; close(): Promise<void> } {
  let waiter: ((t: number) => void) | undefined;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const t = performance.now();
    await req.arrayBuffer();
    waiter?.(t);
    waiter = undefined;
    return new Response("ok");
  });
  return {
    port: server.addr.port,
    next: () => new Promise<number>((resolve) => (waiter = resolve)),
    close: () => server.shutdown(),
  };
}

/** `dev` (this checkout's, or `main`'s) on CPU 0 in `dir`, with the one POST endpoint `/webhook` and `args`. */
export async function startDev(
  dir: string,
  args: string[],
  main = MAIN,
): Promise<{ port: number; pid: number; stop(): Promise<unknown> }> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, "hooktap.config.ts"),
    `export default { port: 8787, endpoints: [{ name: "github", path: "/webhook", method: "POST" }] };\n`,
  );
  const port = freePort();
  const server = await startServer(
    // dev on CPU 0; the load generator and the app share CPU 1, so the app never takes dev's core.
    onCore(0, [
      Deno.execPath(),
      "run",
      ...devFlags(),
      // Another checkout (BENCH_FORWARD_BASELINE) imports its own modules as it needs them.
      ...(main === MAIN ? [] : [`--allow-read=${join(dirname(main), "src")}`]),
      main,
      "dev",
      "--quiet",
      "--port",
      String(port),
      ...args,
    ]),
    { cwd: dir, port },
  );
  return { port, pid: server.pid, stop: () => server.stop() };
}

async function delays(
  url: string,
  app: ReturnType<typeof arrivalApp>,
  n: number,
  body: string,
): Promise<{ arrival: number[]; answer: number[] }> {
  const arrival: number[] = [];
  const answer: number[] = [];
  for (let i = 0; i < n; i++) {
    const arrived = app.next();
    const t0 = performance.now();
    const response = await fetch(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    await response.arrayBuffer();
    answer.push(performance.now() - t0);
    arrival.push((await arrived) - t0);
  }
  return { arrival, answer };
}

/**
 * Counts the lines of a log that only grows, reading only the bytes added since the last call. The bench
 * polls dev's deliveries log while dev drains; reading the whole log each time (tens of MB, split into
 * lines, every 100 ms) took CPU from the two cores it measures, and the drain it timed was longer for it.
 */
export function lineCounter(path: string): { count(): number; close(): void } {
  let file: Deno.FsFile | undefined;
  let lines = 0;
  const buf = new Uint8Array(1 << 20);
  return {
    count() {
      try {
        file ??= Deno.openSync(path, { read: true });
      } catch {
        return 0; // not there yet
      }
      for (;;) {
        const n = file.readSync(buf);
        if (n === null || n === 0) return lines;
        const got = buf.subarray(0, n);
        for (let i = got.indexOf(10); i !== -1; i = got.indexOf(10, i + 1)) lines++;
      }
    },
    close() {
      file?.close();
    },
  };
}

/**
 * The forward profiles' set-up in `dir`: the bench's body and headers written for the load, and the bare app
 * started on CPU 1 (its URL is `http://127.0.0.1:<port>/`).
 */
export async function bareAppFor(dir: string): Promise<{ app: Server; port: number }> {
  await Deno.writeTextFile(join(dir, "body.json"), BODY);
  await Deno.writeTextFile(
    join(dir, "headers.txt"),
    (await githubHeaders()).map(([k, v]) => `${k}: ${v}\n`).join(""),
  );
  const port = freePort();
  const app = await startServer(onCore(1, [Deno.execPath(), "run", "--allow-net", BARE, String(port)]), {
    cwd: dir,
    port,
  });
  return { app, port };
}

/**
 * The forward profiles' load (bench/forward_heap.ts, bench/forward_profile.ts): the bench's body and headers
 * (in `dir`) from 64 connections on one core for `seconds` to dev on `port`, then, unless `receiveOnly`, up
 * to 60 s for dev's deliveries log to catch up with its events log (polled every `pollMs`). Resolves to the
 * load's result and the events stored.
 */
export async function loadAndDrain(
  port: number,
  dir: string,
  options: { seconds: number; receiveOnly: boolean; pollMs: number },
): Promise<{ load: LoadResult; stored: number }> {
  const load = await runLoad(pickLoadGenerator(), {
    url: `http://127.0.0.1:${port}/webhook`,
    seconds: options.seconds,
    connections: 64,
    core: 1,
    bodyFile: join(dir, "body.json"),
    headersFile: join(dir, "headers.txt"),
  });
  const events = lineCounter(join(dir, ".hooktap", "events.jsonl"));
  const stored = events.count();
  events.close();
  const deliveries = lineCounter(join(dir, ".hooktap", "deliveries.jsonl"));
  const deadline = Date.now() + 60_000;
  while (!options.receiveOnly && Date.now() < deadline && deliveries.count() < stored) {
    await new Promise((r) => setTimeout(r, options.pollMs));
  }
  deliveries.close();
  return { load, stored };
}

/** CPU time (user + system) a process has used, in µs; NaN when /proc is not there. */
export function cpuUs(pid: number): number {
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 1e6 / 100; // utime, stime in ticks of 1/100 s
  } catch {
    return NaN;
  }
}

/** Runs the forwarding part. */
export async function measureForward(o: {
  generator: LoadGenerator;
  seconds: number;
  samples: number;
  connections: number;
  scratch: string;
  bodyFile: string;
  headersFile: string;
  log: (line: string) => void;
  /** Throughput rounds (without, with, in turns). @default 1 */
  rounds?: number;
}): Promise<ForwardMeasure> {
  const body = await Deno.readTextFile(o.bodyFile);
  const app = arrivalApp();
  const spread = (v: number[]) => ({ p50: pct(v, 50), p99: pct(v, 99) });
  let direct: number[], queue: number[], relay: number[];
  let storeTimes: number[] = [];
  let baselineQueue: number[] | undefined;
  try {
    await delays(`http://127.0.0.1:${app.port}/`, app, Math.min(20, o.samples), body); // warm up
    direct = (await delays(`http://127.0.0.1:${app.port}/`, app, o.samples, body)).arrival;
    const modes: Record<string, number[]> = {};
    for (const mode of BASELINE ? ["baseline queue", "queue", "relay"] : ["queue", "relay"]) {
      const main = mode.startsWith("baseline") ? BASELINE! : MAIN;
      const dev = await startDev(join(o.scratch, `fwd-${mode.replace(" ", "-")}`), [
        "--forward-to",
        `http://127.0.0.1:${app.port}/`,
        "--forward-mode",
        mode.replace("baseline ", ""),
      ], main);
      try {
        await delays(`http://127.0.0.1:${dev.port}/webhook`, app, Math.min(20, o.samples), body);
        const d = await delays(`http://127.0.0.1:${dev.port}/webhook`, app, o.samples, body);
        modes[mode] = d.arrival;
        // dev's own answer in queue mode (its 200 comes after the fdatasync): the store's time, same run.
        if (mode === "queue") storeTimes = d.answer;
      } finally {
        await dev.stop();
      }
    }
    queue = modes.queue!;
    relay = modes.relay!;
    baselineQueue = modes["baseline queue"];
  } finally {
    await app.close();
  }
  o.log(
    `  forward delay p50: direct ${pct(direct, 50).toFixed(2)} ms, queue ${
      pct(queue, 50).toFixed(2)
    } ms, relay ${pct(relay, 50).toFixed(2)} ms`,
  );

  // Throughput: dev alone, then dev forwarding every event to a bare Deno.serve app, in turns.
  const appPort = freePort();
  const bare = await startServer(onCore(1, [Deno.execPath(), "run", "--allow-net", BARE, String(appPort)]), {
    cwd: o.scratch,
    port: appPort,
  });
  const rounds: Round[] = [];
  const baselineRounds: Round[] = [];
  let delivered = 0, stored = 0;
  const lag: { atEnd: number; drainS: number }[] = [];
  try {
    for (let r = 0; r < (o.rounds ?? 1); r++) {
      for (const main of BASELINE ? [BASELINE, MAIN] : [MAIN]) {
        const rps: number[] = [];
        const cpu: number[] = [];
        for (const forward of [false, true]) {
          const dir = join(o.scratch, `fwd-load-${forward}`);
          await Deno.remove(dir, { recursive: true }).catch(() => {});
          const dev = await startDev(
            dir,
            forward ? ["--forward-to", `http://127.0.0.1:${appPort}/`] : [],
            main,
          );
          try {
            const cpu0 = cpuUs(dev.pid);
            const result = await runLoad(o.generator, {
              url: `http://127.0.0.1:${dev.port}/webhook`,
              seconds: o.seconds,
              connections: o.connections,
              core: 1,
              bodyFile: o.bodyFile,
              headersFile: o.headersFile,
            });
            if (result.failures > 0 || result.requests === 0) {
              throw new Error(`forwarding load: ${result.failures} failures`);
            }
            rps.push(result.rps);
            if (!forward) cpu.push((cpuUs(dev.pid) - cpu0) / result.requests);
            o.log(
              `  ${main === MAIN ? "" : "baseline "}dev ${
                forward ? "with --forward-to" : "without forwarding"
              }: ${result.rps.toFixed(0)} req/s`,
            );
            if (forward) {
              // Let the queue drain (bounded), then count what was delivered.
              // Counted as the logs grow (see lineCounter), every 20 ms.
              const deliveries = lineCounter(join(dir, ".hooktap", "deliveries.jsonl"));
              const events = lineCounter(join(dir, ".hooktap", "events.jsonl"));
              const atEnd = deliveries.count();
              stored = events.count();
              events.close();
              const t0 = Date.now();
              const deadline = t0 + 30_000;
              while (Date.now() < deadline && (delivered = deliveries.count()) < stored) {
                await new Promise((r) => setTimeout(r, 20));
              }
              deliveries.close();
              if (delivered < stored) {
                throw new Error(`forwarding: only ${delivered} of ${stored} events delivered`);
              }
              // Receiving and delivering every event, the drain included.
              cpu.push((cpuUs(dev.pid) - cpu0) / stored);
              lag.push({ atEnd: atEnd / stored, drainS: (Date.now() - t0) / 1000 });
              o.log(
                `    delivered when the load stopped: ${atEnd}/${stored}; the rest within ${
                  lag.at(-1)!.drainS
                } s`,
              );
            }
          } finally {
            await dev.stop();
          }
        }
        (main === MAIN ? rounds : baselineRounds).push({
          without: rps[0]!,
          with: rps[1]!,
          cpuWithout: cpu[0]!,
          cpuWith: cpu[1]!,
          ...lag.pop()!,
        });
      }
    }
  } finally {
    await bare.stop();
  }
  return {
    samples: o.samples,
    seconds: o.seconds,
    direct: spread(direct),
    queue: spread(queue),
    relay: spread(relay),
    syncP50: pct(storeTimes, 50) - pct(direct, 50),
    rounds,
    ...(BASELINE ? { baselineRounds, baselineQueue: spread(baselineQueue!) } : {}),
    delivered,
    stored,
  };
}

const median = (v: number[]) => pct(v, 50);

/** The report's section. */
export function forwardReport(m: ForwardMeasure): string {
  const f = (n: number) => n.toFixed(2);
  const addedQ = m.queue.p50 - m.direct.p50;
  const addedR = m.relay.p50 - m.direct.p50;
  const ratios = (rs: Round[]) => rs.map((r) => r.with / r.without);
  const range = (v: number[]) => v.length > 1 ? ` (${f(Math.min(...v))}–${f(Math.max(...v))})` : "";
  const ratio = median(ratios(m.rounds));
  /** dev's CPU for one delivery: per event with forwarding (receiving and delivering) minus without. */
  const delivery = (x: Round) => x.cpuWith - x.cpuWithout;
  const sustainedOf = (rs: Round[]) =>
    median(rs.map((x) => (x.with * m.seconds / (m.seconds + x.drainS)) / x.without));
  const row = (label: string, rs: Round[], target: boolean) => {
    const r = ratios(rs);
    const cpuRatios = rs.map((x) => x.cpuWithout / x.cpuWith);
    // Every event received and delivered: the load's events over the load's time plus the drain.
    const seconds = m.seconds;
    const sustained = rs.map((x) => (x.with * seconds / (seconds + x.drainS)) / x.without);
    const perDelivery = median(rs.map(delivery));
    const both = median(sustained);
    return [
      `| ${label}: without forwarding | ${median(rs.map((x) => x.without)).toFixed(0)} | | | | ${
        median(rs.map((x) => x.cpuWithout)).toFixed(0)
      } | | | |`,
      `| ${label}: --forward-to (queue) | ${median(rs.map((x) => x.with)).toFixed(0)} | ${f(median(r))}${
        range(r)
      } | ${(median(rs.map((x) => x.atEnd)) * 100).toFixed(0)}% | ${
        median(rs.map((x) => x.drainS)).toFixed(1)
      } s | ${median(rs.map((x) => x.cpuWith)).toFixed(0)} | ${perDelivery.toFixed(0)}${
        range(rs.map(delivery)).replace(/\.\d\d/g, "")
      }${target ? ` (≤ 25 ${perDelivery <= 25 ? "✓" : "✗"})` : ""} | ${f(median(cpuRatios))}${
        range(cpuRatios)
      } | ${f(both)}${range(sustained)}${
        target ? ` (≥ 0.65 issue 36 ${both >= 0.65 ? "✓" : "✗"}; ≥ 0.8 ${both >= 0.8 ? "✓" : "✗"})` : ""
      } |`,
    ];
  };
  return [
    "## Forwarding",
    "",
    `Delay from the sender's request to the app receiving it (${m.samples} sequential events, one sender);`,
    `queue mode sends only after the event's fdatasync: dev's own 200 (store + fdatasync) took p50 ${
      f(m.syncP50)
    } ms over the direct round trip, on the same samples:`,
    "",
    "| path | p50 ms | p99 ms | p50 added | added − store | target |",
    "|---|---:|---:|---:|---:|---|",
    `| sender → app directly | ${f(m.direct.p50)} | ${f(m.direct.p99)} | | | |`,
    ...(m.baselineQueue
      ? [
        `| baseline: sender → hooktap (queue) → app | ${f(m.baselineQueue.p50)} | ${
          f(m.baselineQueue.p99)
        } | ${f(m.baselineQueue.p50 - m.direct.p50)} | ${
          f(m.baselineQueue.p50 - m.direct.p50 - m.syncP50)
        } | |`,
      ]
      : []),
    `| sender → hooktap (queue) → app | ${f(m.queue.p50)} | ${f(m.queue.p99)} | ${f(addedQ)} | ${
      f(addedQ - m.syncP50)
    } | ≤ 1 ms ${addedQ <= 1 ? "✓" : "✗"} (≤ 1 ms + sync ${addedQ - m.syncP50 <= 1 ? "✓" : "✗"}) |`,
    `| sender → hooktap (relay) → app | ${f(m.relay.p50)} | ${f(m.relay.p99)} | ${f(addedR)} | ${
      f(addedR - m.syncP50)
    } | ≤ 1 ms + the fdatasync ${addedR - m.syncP50 <= 1 ? "✓" : "✗"} |`,
    "",
    `dev throughput, ${m.rounds.length} round(s) in turns; dev ${
      PINNED ? "on CPU 0, wrk and the app on CPU 1" : "unpinned (no taskset or one CPU)"
    }; every event delivered (${m.delivered}/${m.stored} in the last run):`,
    "",
    "| dev throughput | req/s | sender's ratio (range) | delivered when the load stopped | rest delivered in | dev CPU µs/event | dev CPU µs per delivery (target) | CPU ratio | received and delivered, ratio (target) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...(m.baselineRounds ? row("baseline (BENCH_FORWARD_BASELINE)", m.baselineRounds, false) : []),
    ...row("this checkout", m.rounds, true),
    "",
    `Targets (issue 29): received and delivered ${f(sustainedOf(m.rounds))} of the rate without forwarding ` +
    `(≥ 0.8 ${sustainedOf(m.rounds) >= 0.8 ? "✓" : "✗"}); dev's CPU per delivery ${
      median(m.rounds.map(delivery)).toFixed(0)
    } µs (≤ 25 ${
      median(m.rounds.map(delivery)) <= 25 ? "✓" : "✗"
    }). Issue 36: forwarding ≥ 0.65 of receive-only ${sustainedOf(m.rounds) >= 0.65 ? "✓" : "✗"} (${
      f(sustainedOf(m.rounds))
    }; moonshot 0.8).`,
    "",
    `Throughput with forwarding ${
      f(ratio)
    } of without (the sender's view). CPU per delivery: dev's CPU per event with forwarding minus without.`,
    `CPU ratio: dev's CPU per event without forwarding over`,
    "with (receiving and delivering every event, drain included): the throughput ratio a CPU-bound dev reaches",
    "in steady state, and far less sensitive to a busy machine than req/s. Received and delivered: the load's",
    "events over the load's seconds plus the drain's, over the rate without (the sender's ratio flatters a",
    "forwarder that leaves its deliveries for later).",
    "",
  ].join("\n");
}
