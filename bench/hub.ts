/**
 * The hub (issue 27): ingest into `hooktap hub serve` on a local KV file,
 * the client's catch-up on waiting events, and the delay the hub adds
 * between a sender and dev's store (beside sending to dev directly).
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type LoadGenerator, runLoad } from "./load.ts";
import { spawnUntil } from "./proc.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** What the hub part measured. */
export interface HubResults {
  ingestEvents: number;
  ingestPerSecond: number;
  catchUpEvents: number;
  catchUpPerSecond: number;
  samples: number;
  directP50: number;
  directP99: number;
  hubP50: number;
  hubP99: number;
}

interface Proc {
  child: Deno.ChildProcess;
  url: string;
}

async function spawn(args: string[], cwd: string, pattern: RegExp): Promise<Proc> {
  const { child, match } = await spawnUntil(["run", "-A", `--config=${CONFIG}`, MAIN, ...args], cwd, pattern);
  return { child, url: match[1]! };
}

async function stop(p: Proc): Promise<void> {
  try {
    p.child.kill("SIGTERM");
  } catch { /* gone */ }
  await p.child.status;
}

async function post(url: string, body: string): Promise<void> {
  const r = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`POST ${url} answered ${r.status}`);
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function storedSeq(dir: string): Promise<number> {
  try {
    return JSON.parse(await Deno.readTextFile(join(dir, ".hooktap", "hub.json"))).seq;
  } catch {
    return 0;
  }
}

/** Runs the hub part in `scratch`. */
export async function measureHub(
  options: {
    smoke: boolean;
    scratch: string;
    log: (line: string) => void;
    generator: LoadGenerator;
    seconds: number;
    bodyFile: string;
    headersFile: string;
  },
): Promise<HubResults> {
  const { scratch, log } = options;
  await Deno.mkdir(scratch, { recursive: true });
  const ingestEvents = options.smoke ? 300 : 10_000;
  const samples = options.smoke ? 20 : 1_000;
  const hub = await spawn(
    // The raw ingest rate: the per-channel rate limit (a guard for the open internet) is off.
    [
      "hub",
      "serve",
      "--port",
      "0",
      "--kv",
      join(scratch, "hub.sqlite"),
      "--admin-token",
      "bench",
      "--rate-limit",
      "0",
    ],
    scratch,
    /listening on (http:\/\/\S+)/,
  );
  const devs: Proc[] = [];
  try {
    const created = await fetch(`${hub.url}/api/channels`, {
      method: "POST",
      headers: { authorization: "Bearer bench" },
    });
    const channel = await created.json() as { url: string; token: string };
    const body = JSON.stringify({ action: "opened", number: 1, padding: "x".repeat(1500) });
    // Ingest: the load generator (on CPU 1) for `seconds`, 32 connections, no client connected.
    log(`  hub ingest: ${options.generator}, ${options.seconds} s, 32 connections`);
    const load = await runLoad(options.generator, {
      url: `${channel.url}/webhook`,
      seconds: options.seconds,
      connections: 32,
      core: 1,
      bodyFile: options.bodyFile,
      headersFile: options.headersFile,
    });
    if (load.failures > 0) throw new Error(`hub ingest: ${load.failures} requests failed`);
    // Top up to the catch-up count with plain requests.
    let next = load.requests;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < ingestEvents) {
        next++;
        await post(`${channel.url}/webhook`, body);
      }
    }));
    const waitingEvents = Math.max(next, load.requests);
    // Catch-up: dev connects with every event waiting.
    const devDir = join(scratch, "dev");
    await Deno.mkdir(devDir, { recursive: true });
    await Deno.writeTextFile(
      join(devDir, "hooktap.config.ts"),
      `export default { port: 0, ui: false, endpoints: [{ name: "w", path: "/webhook", method: "POST" }] };\n`,
    );
    log("  hub catch-up: dev --hub with every event waiting");
    const t1 = performance.now();
    const dev = await spawn(
      ["dev", "--port", "0", "--quiet", "--hub", channel.url, "--hub-token", channel.token],
      devDir,
      /listening on (http:\/\/\S+)/,
    );
    devs.push(dev);
    const started = performance.now();
    while ((await storedSeq(devDir)) < waitingEvents) await new Promise((r) => setTimeout(r, 5));
    const catchUpSeconds = (performance.now() - started) / 1000;
    log(`    (dev start-up ${((started - t1) / 1000).toFixed(2)} s, not counted)`);
    // Added delay: one request at a time, direct to dev and through the hub (whose answer comes
    // back only after the client stored the event), alternating.
    log(`  hub added delay: ${samples} requests each way`);
    const direct: number[] = [];
    const via: number[] = [];
    const devUrl = dev.url.replace("localhost", "127.0.0.1");
    for (let i = 0; i < samples + 5; i++) {
      const a = performance.now();
      await post(`${devUrl}/webhook`, body);
      const b = performance.now();
      await post(`${channel.url}/webhook`, body);
      const c = performance.now();
      if (i >= 5) {
        direct.push(b - a);
        via.push(c - b);
      }
    }
    direct.sort((x, y) => x - y);
    via.sort((x, y) => x - y);
    return {
      ingestEvents: load.requests,
      ingestPerSecond: load.rps,
      catchUpEvents: waitingEvents,
      catchUpPerSecond: waitingEvents / catchUpSeconds,
      samples,
      directP50: pct(direct, 0.5),
      directP99: pct(direct, 0.99),
      hubP50: pct(via, 0.5),
      hubP99: pct(via, 0.99),
    };
  } finally {
    for (const d of devs) await stop(d);
    await stop(hub);
  }
}

/** The hub part of the report. */
export function hubReport(r: HubResults): string {
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  return [
    "",
    "## The hub (issue 27)",
    "",
    "| Measure | Result | Target |",
    "|---|---|---|",
    `| Ingest into \`hub serve\` (local KV file, 32 connections, ${r.ingestEvents} events) | ${
      r.ingestPerSecond.toFixed(0)
    } events/s | ≥ 2,000/s |`,
    `| Client catch-up (${r.catchUpEvents} waiting events into dev's store) | ${
      r.catchUpPerSecond.toFixed(0)
    } events/s | ≥ 5,000/s |`,
    `| Sender → dev directly, p50 / p99 (${r.samples} requests) | ${ms(r.directP50)} / ${
      ms(r.directP99)
    } | |`,
    `| Sender → hub → client's store → answer back, p50 / p99 | ${ms(r.hubP50)} / ${ms(r.hubP99)} | |`,
    `| Added delay (difference of the two), p50 / p99 | ${ms(r.hubP50 - r.directP50)} / ${
      ms(r.hubP99 - r.directP99)
    } | p50 ≤ 5 ms |`,
    "",
  ].join("\n");
}
