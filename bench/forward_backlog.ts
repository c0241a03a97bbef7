/**
 * Forwarding backlog memory (issue 36.5, issue 38.4): `hooktap dev` receives
 * 20,000 events of ~10 KB for a forward target where nothing listens; how
 * much its RSS grows (target: ≤ 40 MB; it was ~200 MB when every waiting
 * event was held in memory), beside the same load with forwarding off. Then
 * the app starts: every event must arrive exactly once, in order.
 *
 *     deno run -A bench/forward_backlog.ts [--events N] [--main PATH/main.ts]
 * @module
 */
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { freePort, rssKiB, spawnUntil } from "./proc.ts";
import { devFlags } from "./write_side.ts";

/** `--main PATH/main.ts`: another checkout's dev (the "before" of a change, run one after the other). */
const MAIN_AT = Deno.args.indexOf("--main");
const MAIN = MAIN_AT === -1 ? fileURLToPath(new URL("../main.ts", import.meta.url)) : Deno.args[MAIN_AT + 1]!;

/** The target: RSS growth with 20,000 events waiting, MB. */
export const BACKLOG_TARGET_MB = 40;

/** What was measured. */
export interface BacklogMeasure {
  events: number;
  bodyBytes: number;
  /** RSS growth, MB, once the load ended (after a short settle): forwarding to a down target, and off. */
  forwardMB: number;
  receiveOnlyMB: number;
  /** Peak RSS growth (VmHWM), MB. */
  forwardPeakMB: number;
  /** Events the app got once each, in order, after it started; and how long the backlog took to arrive. */
  deliveredInOrder: number;
  duplicates: number;
  drainS: number;
}

async function send(port: number, events: number, body: string): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < events) {
      const n = next++;
      const r = await fetch(`http://127.0.0.1:${port}/hook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-n": String(n) },
        body,
      });
      await r.body?.cancel();
      if (r.status !== 200) throw new Error(`event ${n}: ${r.status}`);
    }
  }));
}

async function oneRun(scratch: string, events: number, body: string, forward: boolean) {
  const dir = await Deno.makeTempDir({ dir: scratch, prefix: forward ? "backlog_fwd_" : "backlog_off_" });
  const appPort = freePort();
  await Deno.writeTextFile(
    join(dir, "hooktap.config.ts"),
    `export default { port: 0, ui: false, endpoints: [{ name: "hook", path: "/hook", method: "POST"` +
      (forward ? `, forward: "http://127.0.0.1:${appPort}/in"` : "") + ` }] };\n`,
  );
  const { child, match } = await spawnUntil(
    [
      "run",
      ...devFlags(),
      // Another checkout (`--main`) imports its own modules as it needs them.
      ...(MAIN_AT === -1 ? [] : [`--allow-read=${join(dirname(MAIN), "src")}`]),
      MAIN,
      "dev",
      "--port",
      "0",
      "--quiet",
    ],
    dir,
    /listening on http:\/\/[^:]+:(\d+)/,
  );
  try {
    const port = Number(match[1]);
    await new Promise((r) => setTimeout(r, 500));
    const before = rssKiB(child.pid);
    await send(port, events, body);
    await new Promise((r) => setTimeout(r, 2000));
    const after = rssKiB(child.pid);
    const peak = rssKiB(child.pid, "VmHWM");
    let order = { inOrder: 0, duplicates: 0, drainS: NaN };
    if (forward) {
      const seen: number[] = [];
      const t0 = performance.now();
      const app = Deno.serve({ hostname: "127.0.0.1", port: appPort, onListen() {} }, (req) => {
        seen.push(Number(req.headers.get("x-n")));
        return new Response(null, { status: 204 });
      });
      const deadline = Date.now() + 300_000;
      while (seen.length < events && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const drainS = (performance.now() - t0) / 1000;
      await new Promise((r) => setTimeout(r, 500));
      await app.shutdown();
      // Arrival order is the store's (16 senders at once: not the order of x-n).
      const stored = (await Deno.readTextFile(join(dir, ".hooktap", "events.jsonl"))).split("\n")
        .filter((l) => l !== "").map((l) => {
          const headers = JSON.parse(l).headers as [string, string][];
          return Number(headers.find(([name]) => name.toLowerCase() === "x-n")?.[1]);
        });
      let inOrder = 0;
      for (let i = 0; i < seen.length && seen[i] === stored[i]; i++) inOrder++;
      order = { inOrder, duplicates: seen.length - new Set(seen).size, drainS };
    }
    return { grewMB: (after - before) / 1024, peakMB: (peak - before) / 1024, ...order };
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

/** Runs both turns. */
export async function measureBacklog(
  options: { scratch: string; events: number; log: (s: string) => void },
): Promise<BacklogMeasure> {
  const bodyBytes = 10 * 1024;
  const body = JSON.stringify({ pad: "x".repeat(bodyBytes - 10) });
  options.log(`forward backlog: ${options.events} events, forwarding off`);
  const off = await oneRun(options.scratch, options.events, body, false);
  options.log(`forward backlog: ${options.events} events waiting for a down target`);
  const on = await oneRun(options.scratch, options.events, body, true);
  return {
    events: options.events,
    bodyBytes,
    forwardMB: on.grewMB,
    receiveOnlyMB: off.grewMB,
    forwardPeakMB: on.peakMB,
    deliveredInOrder: on.inOrder,
    duplicates: on.duplicates,
    drainS: on.drainS,
  };
}

/** The report's section. */
export function backlogReport(m: BacklogMeasure): string {
  const ok = m.forwardMB <= BACKLOG_TARGET_MB ? "meets" : "misses";
  return [
    "## Forwarding backlog memory (issue 36.5)",
    "",
    `${m.events} events of ${m.bodyBytes / 1024} KB for a forward target where nothing listens:`,
    "",
    "| | RSS growth | target |",
    "| --- | ---: | ---: |",
    `| waiting for a down target | ${m.forwardMB.toFixed(1)} MB (peak ${m.forwardPeakMB.toFixed(1)} MB) | ` +
    `≤ ${BACKLOG_TARGET_MB} MB (${ok}) |`,
    `| forwarding off (receive only) | ${m.receiveOnlyMB.toFixed(1)} MB | |`,
    "",
    `Forwarding's own share: ${
      (m.forwardMB - m.receiveOnlyMB).toFixed(1)
    } MB (the rest is the receive path, ` +
    "measured alone beside it).",
    "",
    `When the app listened: ${m.deliveredInOrder} of ${m.events} arrived once each in arrival order ` +
    `(${m.duplicates} duplicates), in ${m.drainS.toFixed(1)} s.`,
    "",
  ].join("\n");
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--events");
  const events = at === -1 ? 20_000 : Number(Deno.args[at + 1]);
  const scratch = await Deno.makeTempDir({ prefix: "hooktap_bench_backlog_" });
  try {
    // deno-lint-ignore no-console
    const m = await measureBacklog({ scratch, events, log: (s) => console.error(s) });
    // deno-lint-ignore no-console
    console.log(backlogReport(m));
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}
