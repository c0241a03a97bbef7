/**
 * The inspector on a long forwarding history (issue 36: bounded under any backlog): `hooktap ui` over a
 * store whose `.hooktap/deliveries.jsonl` holds hundreds of thousands of attempts, its resident memory
 * before and after the first list page, the first page's time (cold: the delivery states are read then),
 * the next page's, and a `delivery=failed` page's. Run one or more checkouts side by side on the same store:
 *
 * ```sh
 * git archive <base> | tar -x -C /tmp/hooktap-before
 * deno run -A bench/inspector_history.ts --main /tmp/hooktap-before/main.ts --main main.ts
 * ```
 * @module
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, rssKiB, startServer } from "./proc.ts";
import { writeDeliveryHistory } from "../tests/_delivery_history.ts";

/** What one checkout measured. */
export interface HistoryResults {
  main: string;
  /** RSS of `hooktap ui` once listening, before any request, MB. */
  idleMB: number;
  /** RSS after the first list page, MB. */
  firstPageMB: number;
  /** `GET /api/events?limit=100`, the first (cold) and a second one, ms. */
  firstPageMs: number;
  againMs: number;
  /** `GET /api/events?delivery=failed&limit=100` (a filter over the whole store), ms. */
  failedMs: number;
  /** `delivery=pending` (rare) paged to the start of the log: ms, and the pages it took. */
  rareAllMs: number;
  rarePages: number;
  /** RSS after it, and the peak, MB. */
  afterFilterMB: number;
  peakMB: number;
}

async function tokenOf(dir: string, port: number): Promise<string> {
  const path = join(dir, ".hooktap", `inspector-${port}.token`);
  for (const end = Date.now() + 20_000;;) {
    try {
      return (await Deno.readTextFile(path)).trim();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || Date.now() > end) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

async function timed(
  url: string,
  token: string,
): Promise<{ ms: number; events: number; next: number | null }> {
  const t0 = performance.now();
  const response = await fetch(url, { headers: { "x-hooktap-token": token } });
  const body = await response.json() as { events: unknown[]; next: number | null };
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, events: body.events.length, next: body.next };
}

/** Measures `hooktap ui` of the checkout whose entry point is `main`, over the store in `dir`. */
export async function measureHistory(main: string, dir: string): Promise<HistoryResults> {
  const port = freePort();
  const ui = await startServer([Deno.execPath(), "run", "-A", main, "ui", "--port", String(port)], {
    cwd: dir,
    port,
  });
  try {
    const token = await tokenOf(dir, port);
    const base = `http://127.0.0.1:${port}/api/events`;
    await new Promise((r) => setTimeout(r, 500)); // settled after start-up
    const idleMB = rssKiB(ui.pid) / 1024;
    const first = await timed(`${base}?limit=100`, token);
    const firstPageMB = rssKiB(ui.pid) / 1024;
    const again = await timed(`${base}?limit=100`, token);
    const failed = await timed(`${base}?delivery=failed&limit=100`, token);
    const t0 = performance.now();
    let rarePages = 0;
    for (let next: number | null = null; rarePages === 0 || next !== null; rarePages++) {
      next =
        (await timed(`${base}?delivery=pending&limit=100${next === null ? "" : `&before=${next}`}`, token))
          .next;
    }
    const rareAllMs = performance.now() - t0;
    return {
      main,
      idleMB,
      firstPageMB,
      firstPageMs: first.ms,
      againMs: again.ms,
      failedMs: failed.ms,
      rareAllMs,
      rarePages,
      afterFilterMB: rssKiB(ui.pid) / 1024,
      peakMB: rssKiB(ui.pid, "VmHWM") / 1024,
    };
  } finally {
    await ui.stop();
  }
}

/** A generated history of `events` events in `dataDir` (made once, then reused), and its attempts. */
async function ensureHistory(dataDir: string, events: number): Promise<{ dir: string; attempts: number }> {
  const dir = resolve(dataDir, "history", String(events));
  try {
    return { dir, attempts: Number(await Deno.readTextFile(join(dir, "attempts"))) };
  } catch {
    await Deno.mkdir(dir, { recursive: true });
    const { attempts } = await writeDeliveryHistory(dir, { events, spacingMs: 20_000 });
    await Deno.writeTextFile(join(dir, "attempts"), String(attempts));
    return { dir, attempts };
  }
}

/** The bench's part (`deno task bench`): this checkout's `hooktap ui` over a month of delivery history. */
export async function measureHistoryPart(o: {
  dataDir: string;
  events: number;
  log?: (line: string) => void;
}): Promise<HistoryResults & { events: number; attempts: number }> {
  const { dir, attempts } = await ensureHistory(o.dataDir, o.events);
  const main = fileURLToPath(new URL("../main.ts", import.meta.url));
  const r = await measureHistory(main, dir);
  o.log?.(
    `  inspector on ${attempts} attempts: first page ${r.firstPageMs.toFixed(0)} ms, RSS ${
      r.idleMB.toFixed(0)
    } -> ${r.firstPageMB.toFixed(0)} MB`,
  );
  return { ...r, events: o.events, attempts };
}

/** Aims of our own (issue 36 is silent on the inspector): first page ≤ 100 ms, RSS growth ≤ 40 MB. */
const AIM_FIRST_PAGE_MS = 100;
const AIM_GROWTH_MB = 40;

/** The part's section of the report. */
export function historyReport(r: HistoryResults & { events: number; attempts: number }): string {
  const grew = r.firstPageMB - r.idleMB;
  const met = (ok: boolean) => (ok ? "**met**" : "**missed**");
  return [
    "",
    `### Inspector on a long delivery history (issue 36: bounded under any backlog), ${
      r.events.toLocaleString("en")
    } events, ${r.attempts.toLocaleString("en")} attempts`,
    "",
    "| measure | figure | our aim | |",
    "|---|---|---|---|",
    `| first list page (cold: its delivery states read then), ms | ${
      r.firstPageMs.toFixed(0)
    } | ${AIM_FIRST_PAGE_MS} | ${met(r.firstPageMs <= AIM_FIRST_PAGE_MS)} |`,
    `| RSS growth of \`hooktap ui\` from idle to after the first page, MB | ${
      grew.toFixed(0)
    } | ${AIM_GROWTH_MB} | ${met(grew <= AIM_GROWTH_MB)} |`,
    `| first \`delivery=failed\` page, ms | ${r.failedMs.toFixed(0)} | | |`,
    `| \`delivery=pending\` paged to the log's start (${r.rarePages} page${
      r.rarePages === 1 ? "" : "s"
    }), ms | ${r.rareAllMs.toFixed(0)} | | |`,
    `| RSS after it, peak, MB | ${r.afterFilterMB.toFixed(0)}, ${r.peakMB.toFixed(0)} | | |`,
    "",
    "Before this round the first page read the whole deliveries log into a map of every attempt (1.4–1.7 s and",
    "+165 MB on 302,414 attempts); `deno run -A bench/inspector_history.ts --main <old>/main.ts --main main.ts`",
    "measures two checkouts side by side.",
    "",
  ].join("\n");
}

// deno-lint-ignore no-console
const print = (line: string) => console.log(line);

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      events: { type: "string", default: "143000" }, // about 300,000 attempts
      main: { type: "string", multiple: true, default: ["main.ts"] },
      data: { type: "string", default: "bench/.data" }, // the store: <data>/history/<events>
      runs: { type: "string", default: "2" },
    },
  });
  const { dir, attempts } = await ensureHistory(values.data!, Number(values.events));
  const size = (p: string) => (Deno.statSync(join(dir, ".hooktap", p)).size / 1024 / 1024).toFixed(0);
  print(
    `store: ${values.events} events (${size("events.jsonl")} MB), ${attempts} attempts (${
      size("deliveries.jsonl")
    } MB)`,
  );
  print(
    "| checkout | idle MB | after page 1 MB | page 1 ms | again ms | delivery=failed ms | " +
      "delivery=pending, every page: ms (pages) | after MB | peak MB |",
  );
  print("|---|---|---|---|---|---|---|---|---|");
  for (let run = 0; run < Number(values.runs); run++) {
    for (const main of values.main!) {
      const r = await measureHistory(resolve(main), dir);
      const f = (n: number) => n.toFixed(0);
      print(
        `| ${main} | ${f(r.idleMB)} | ${f(r.firstPageMB)} | ${f(r.firstPageMs)} | ${f(r.againMs)} | ${
          f(r.failedMs)
        } | ${f(r.rareAllMs)} (${r.rarePages}) | ${f(r.afterFilterMB)} | ${f(r.peakMB)} |`,
      );
    }
  }
}
