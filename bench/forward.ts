/**
 * Forwarding in the benchmark (issue 10): the delay a forwarded event adds
 * between the sender's request and the app receiving it (queue and relay,
 * beside the sender calling the app directly), and `dev`'s throughput with
 * `--forward-to` (queue) beside without.
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { type LoadGenerator, runLoad } from "./load.ts";
import { freePort, startServer } from "./proc.ts";
import { devFlags } from "./write_side.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const BARE = fileURLToPath(new URL("./servers/bare.ts", import.meta.url));

/** What was measured. */
export interface ForwardMeasure {
  samples: number;
  direct: { p50: number; p99: number };
  queue: { p50: number; p99: number };
  relay: { p50: number; p99: number };
  rpsWithout: number;
  rpsWith: number;
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

async function startDev(dir: string, args: string[]): Promise<{ port: number; stop(): Promise<unknown> }> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, "hooktap.config.ts"),
    `export default { port: 8787, endpoints: [{ name: "github", path: "/webhook", method: "POST" }] };\n`,
  );
  const port = freePort();
  const server = await startServer(
    [Deno.execPath(), "run", ...devFlags(), MAIN, "dev", "--quiet", "--port", String(port), ...args],
    { cwd: dir, port },
  );
  return { port, stop: () => server.stop() };
}

async function delays(
  url: string,
  app: ReturnType<typeof arrivalApp>,
  n: number,
  body: string,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const arrived = app.next();
    const t0 = performance.now();
    const response = await fetch(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    await response.arrayBuffer();
    out.push((await arrived) - t0);
  }
  return out;
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
}): Promise<ForwardMeasure> {
  const body = await Deno.readTextFile(o.bodyFile);
  const app = arrivalApp();
  const spread = (v: number[]) => ({ p50: pct(v, 50), p99: pct(v, 99) });
  let direct: number[], queue: number[], relay: number[];
  try {
    await delays(`http://127.0.0.1:${app.port}/`, app, Math.min(20, o.samples), body); // warm up
    direct = await delays(`http://127.0.0.1:${app.port}/`, app, o.samples, body);
    const modes: Record<string, number[]> = {};
    for (const mode of ["queue", "relay"]) {
      const dev = await startDev(join(o.scratch, `fwd-${mode}`), [
        "--forward-to",
        `http://127.0.0.1:${app.port}/`,
        "--forward-mode",
        mode,
      ]);
      try {
        await delays(`http://127.0.0.1:${dev.port}/webhook`, app, Math.min(20, o.samples), body);
        modes[mode] = await delays(`http://127.0.0.1:${dev.port}/webhook`, app, o.samples, body);
      } finally {
        await dev.stop();
      }
    }
    queue = modes.queue!;
    relay = modes.relay!;
  } finally {
    await app.close();
  }
  o.log(
    `  forward delay p50: direct ${pct(direct, 50).toFixed(2)} ms, queue ${
      pct(queue, 50).toFixed(2)
    } ms, relay ${pct(relay, 50).toFixed(2)} ms`,
  );

  // Throughput: dev alone, then dev forwarding every event to a bare Deno.serve app.
  const appPort = freePort();
  const bare = await startServer([Deno.execPath(), "run", "--allow-net", BARE, String(appPort)], {
    cwd: o.scratch,
    port: appPort,
  });
  const rps: number[] = [];
  let delivered = 0, stored = 0;
  try {
    for (const forward of [false, true]) {
      const dir = join(o.scratch, `fwd-load-${forward}`);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      const dev = await startDev(dir, forward ? ["--forward-to", `http://127.0.0.1:${appPort}/`] : []);
      try {
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
        o.log(
          `  dev ${forward ? "with --forward-to" : "without forwarding"}: ${result.rps.toFixed(0)} req/s`,
        );
        if (forward) {
          // Let the queue drain (bounded), then count what was delivered.
          const deliveries = join(dir, ".hooktap", "deliveries.jsonl");
          const events = join(dir, ".hooktap", "events.jsonl");
          const count = async (f: string) => (await Deno.readTextFile(f)).split("\n").length - 1;
          stored = await count(events);
          const deadline = Date.now() + 30_000;
          while (Date.now() < deadline && (delivered = await count(deliveries).catch(() => 0)) < stored) {
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      } finally {
        await dev.stop();
      }
    }
  } finally {
    await bare.stop();
  }
  if (delivered < stored) throw new Error(`forwarding: only ${delivered} of ${stored} events delivered`);
  return {
    samples: o.samples,
    direct: spread(direct),
    queue: spread(queue),
    relay: spread(relay),
    rpsWithout: rps[0]!,
    rpsWith: rps[1]!,
    delivered,
    stored,
  };
}

/** The report's section. */
export function forwardReport(m: ForwardMeasure): string {
  const f = (n: number) => n.toFixed(2);
  const addedQ = m.queue.p50 - m.direct.p50;
  const addedR = m.relay.p50 - m.direct.p50;
  const ratio = m.rpsWith / m.rpsWithout;
  return [
    "## Forwarding",
    "",
    `Delay from the sender's request to the app receiving it (${m.samples} sequential events, one sender):`,
    "",
    "| path | p50 ms | p99 ms | p50 added | target |",
    "|---|---:|---:|---:|---|",
    `| sender → app directly | ${f(m.direct.p50)} | ${f(m.direct.p99)} | | |`,
    `| sender → hooktap (queue) → app | ${f(m.queue.p50)} | ${f(m.queue.p99)} | ${f(addedQ)} | ≤ 1 ms ${
      addedQ <= 1 ? "✓" : "✗"
    } |`,
    `| sender → hooktap (relay) → app | ${f(m.relay.p50)} | ${f(m.relay.p99)} | ${
      f(addedR)
    } | ≤ 1 ms + the fdatasync |`,
    "",
    "| dev throughput | req/s | ratio | target |",
    "|---|---:|---:|---|",
    `| without forwarding | ${m.rpsWithout.toFixed(0)} | | |`,
    `| --forward-to (queue), every event delivered (${m.delivered}/${m.stored}) | ${m.rpsWith.toFixed(0)} | ${
      ratio.toFixed(2)
    } | ≥ 0.8 ${ratio >= 0.8 ? "✓" : "✗"} |`,
    "",
  ].join("\n");
}
