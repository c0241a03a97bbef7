/// <reference lib="dom" />
/**
 * The inspector on the generated store (issue 12): time to the first list
 * page and to one event through the API, first paint of the page in
 * Chromium, the live delay from a 200 to the row in the page, and the
 * inspector's memory while paging deep. Chromium parts are skipped (and
 * said so) when `/usr/bin/chromium` is missing.
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { freePort, rssKiB, type Server, startServer } from "./proc.ts";
import { type Spread, spread } from "./stats.ts";
import type { StoreMeta } from "./store_gen.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const DENO = Deno.execPath();
const CHROMIUM = Deno.env.get("HOOKTAP_CHROMIUM") ?? "/usr/bin/chromium";

/** What was measured. */
export interface InspectorResults {
  events: number;
  /** `GET /api/events?limit=100`, ms. */
  firstPageMs: Spread;
  /** `GET /api/events/:id` of an event near the start of the log, ms. */
  oneEventMs: Spread;
  /** `first-contentful-paint` of the page in Chromium, ms; undefined without Chromium. */
  firstPaintMs?: Spread;
  /** From the sender's 200 to the row in the page, ms (negative: the row came first). */
  liveDelayMs?: Spread;
  /** From sending the request to the row in the page, ms (an upper bound: includes the fdatasync). */
  sendToRowMs?: Spread;
  /** Resident memory of `hooktap ui` after the first page and after paging deep, MB; pages read. */
  memory: { firstMB: number; deepMB: number; peakMB: number; pages: number; eventsPaged: number };
}

/**
 * The session token of the inspector on `port` started in `dir` (its API wants it). The inspector writes
 * the file (by rename, whole) just after it starts listening, so a loaded machine can see the port first:
 * wait for the file, up to 20 s.
 */
async function tokenOf(dir: string, port: number): Promise<string> {
  const path = join(dir, ".hooktap", `inspector-${port}.token`);
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return (await Deno.readTextFile(path)).trim();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

async function timed(url: string, token: string, check: (body: unknown) => void): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(url, { headers: { "x-hooktap-token": token } });
  const body = await response.json();
  const ms = performance.now() - t0;
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${JSON.stringify(body)}`);
  check(body);
  return ms;
}

async function chromiumThere(): Promise<boolean> {
  return await Deno.stat(CHROMIUM).then(() => true, () => false);
}

/** The tests' Chromium (same flags, fresh profile), loaded only when the browser parts run. */
async function launch() {
  const { launchChromium } = await import("../tests/inspector/_browser.ts");
  const browser = await launchChromium();
  return { browser, close: () => browser[Symbol.asyncDispose]() };
}

/** Live delay: a small `hooktap dev` in `scratch`, the page open, `runs` POSTs one after another. */
async function liveDelay(scratch: string, runs: number): Promise<{ afterOk: number[]; afterSend: number[] }> {
  const dir = join(scratch, "inspector-live");
  await Deno.mkdir(dir, { recursive: true });
  const port = freePort();
  let uiPort = freePort();
  while (uiPort === port) uiPort = freePort();
  await Deno.writeTextFile(
    join(dir, "hooktap.config.ts"),
    `export default { port: ${port}, endpoints: [{ name: "live", path: "/live", method: "POST" }] };\n`,
  );
  const dev = await startServer(
    [DENO, "run", "-A", MAIN, "dev", "--quiet", "--ui-port", String(uiPort)],
    { cwd: dir, port: uiPort },
  );
  const { browser, close } = await launch();
  const delays: number[] = [];
  const fromSend: number[] = [];
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${uiPort}/?token=${await tokenOf(dir, uiPort)}`, { waitUntil: "load" });
    await page.waitForFunction(() => document.body.dataset.live === "on", { timeout: 10_000 });
    await page.evaluate(() => {
      const seen: Record<string, number> = {};
      (globalThis as unknown as { __seen: Record<string, number> }).__seen = seen;
      new MutationObserver((records) => {
        const at = performance.timeOrigin + performance.now();
        for (const r of records) {
          for (const n of r.addedNodes) {
            const id = (n as HTMLElement).dataset?.id;
            if (id) seen[id] ??= at;
          }
        }
      }).observe(document.getElementById("rows")!, { childList: true });
    });
    for (let i = 0; i < runs; i++) {
      const sentAt = performance.timeOrigin + performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/live`, { method: "POST", body: `{"n":${i}}` });
      const okAt = performance.timeOrigin + performance.now();
      const { id } = await response.json();
      await page.waitForFunction(
        (id) => (globalThis as unknown as { __seen: Record<string, number> }).__seen[id],
        {
          timeout: 5000,
        },
        id,
      );
      const rowAt = await page.evaluate(
        (id) => (globalThis as unknown as { __seen: Record<string, number> }).__seen[id]!,
        id,
      );
      delays.push(rowAt - okAt);
      fromSend.push(rowAt - sentAt);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await close();
    await dev.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return { afterOk: delays, afterSend: fromSend };
}

/** Measures the inspector on the store in `o.dir`. */
export async function measureInspector(o: {
  dir: string;
  meta: StoreMeta;
  runs: number;
  /** Pages of 100 read when paging deep. */
  deepPages: number;
  scratch: string;
  log?: (line: string) => void;
}): Promise<InspectorResults> {
  const log = o.log ?? (() => {});
  const port = freePort();
  const ui: Server = await startServer([DENO, "run", "-A", MAIN, "ui", "--port", String(port)], {
    cwd: o.dir,
    port,
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    const token = await tokenOf(o.dir, port);
    const first: number[] = [];
    const one: number[] = [];
    const newest = o.meta.lastIds.at(-1);
    for (let i = 0; i < o.runs + 1; i++) {
      const ms = await timed(`${base}/api/events?limit=100`, token, (b) => {
        if ((b as { events: { id: string }[] }).events[0]?.id !== newest) {
          throw new Error("first page: wrong newest");
        }
      });
      const ms2 = await timed(`${base}/api/events/${o.meta.nearStartId}`, token, (b) => {
        if ((b as { event: { id: string } }).event.id !== o.meta.nearStartId) {
          throw new Error("one event: wrong id");
        }
      });
      if (i > 0) { // the first round warms up
        first.push(ms);
        one.push(ms2);
      }
    }
    log(
      `  inspector API: first page ${spread(first).median.toFixed(1)} ms, one event ${
        spread(one).median.toFixed(1)
      } ms`,
    );
    const firstMB = rssKiB(ui.pid) / 1024;
    let cursor: number | null = null;
    let pages = 0;
    let eventsPaged = 0;
    let peak = 0;
    while (pages < o.deepPages) {
      const url: string = `${base}/api/events?limit=100${cursor === null ? "" : `&before=${cursor}`}`;
      const page = await (await fetch(url, { headers: { "x-hooktap-token": token } })).json() as {
        events: unknown[];
        next: number | null;
      };
      pages++;
      eventsPaged += page.events.length;
      if (pages % 10 === 0) peak = Math.max(peak, rssKiB(ui.pid));
      if (page.next === null) break;
      cursor = page.next;
    }
    const deepMB = rssKiB(ui.pid) / 1024;
    const memory = {
      firstMB,
      deepMB,
      peakMB: Math.max(peak, rssKiB(ui.pid, "VmHWM")) / 1024,
      pages,
      eventsPaged,
    };
    log(
      `  inspector memory: ${firstMB.toFixed(0)} MB after page 1, ${
        deepMB.toFixed(0)
      } MB after ${pages} pages`,
    );
    const results: InspectorResults = {
      events: o.meta.count,
      firstPageMs: spread(first),
      oneEventMs: spread(one),
      memory,
    };
    if (!(await chromiumThere())) {
      log(`  inspector: ${CHROMIUM} is missing; first paint and live delay not measured`);
      return results;
    }
    const { browser, close } = await launch();
    const paints: number[] = [];
    try {
      for (let i = 0; i < o.runs + 1; i++) {
        const page = await browser.newPage();
        await page.goto(`${base}/?token=${token}`, { waitUntil: "load" });
        await page.waitForSelector("#rows tr[data-id]", { timeout: 10_000 });
        const fcp = await page.evaluate(() =>
          performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN
        );
        await page.close();
        if (i > 0) paints.push(fcp);
      }
    } finally {
      await close();
    }
    results.firstPaintMs = spread(paints);
    log(`  inspector first paint: ${results.firstPaintMs.median.toFixed(0)} ms`);
    const live = await liveDelay(o.scratch, Math.max(3, o.runs));
    results.liveDelayMs = spread(live.afterOk);
    results.sendToRowMs = spread(live.afterSend);
    log(`  inspector live delay: ${results.liveDelayMs.median.toFixed(1)} ms`);
    return results;
  } finally {
    await ui.stop();
  }
}

const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
const s = (
  x: Spread | undefined,
  d = 1,
) => (x === undefined ? "not measured" : `${f(x.median, d)} (${f(x.min, d)}–${f(x.max, d)})`);
const met = (x: Spread | undefined, target: number) =>
  x === undefined ? "not measured" : x.median <= target ? "**met**" : "**missed**";

/** The inspector's section of the report. */
export function inspectorReport(r: InspectorResults): string {
  return [
    "",
    `### Inspector (issue 12), on the ${r.events.toLocaleString("en")}-event store`,
    "",
    "| measure | median (min–max) | target | |",
    "|---|---|---|---|",
    `| API: first list page (100 events), ms | ${s(r.firstPageMs)} | 50 | ${met(r.firstPageMs, 50)} |`,
    `| API: one event by id (near the log's start), ms | ${s(r.oneEventMs)} | 50 | ${
      met(r.oneEventMs, 50)
    } |`,
    `| Chromium: first contentful paint, ms | ${s(r.firstPaintMs, 0)} | 300 | ${met(r.firstPaintMs, 300)} |`,
    `| live: sender's 200 → row in the page, ms | ${s(r.liveDelayMs)} | 100 | ${met(r.liveDelayMs, 100)} |`,
    `| live: request sent → row in the page, ms | ${s(r.sendToRowMs)} | | |`,
    "",
    "A negative live delay means the row was on the page before the sender had read its `200`: `dev` pushes",
    "each event to the page as soon as it is on disk, while the `200` is still on its way.",
    "",
    `Memory of \`hooktap ui\` (RSS): ${f(r.memory.firstMB, 0)} MB after the first page, ` +
    `${f(r.memory.deepMB, 0)} MB after paging ${r.memory.pages} pages (${
      r.memory.eventsPaged.toLocaleString("en")
    } events) ` +
    `deep, peak ${f(r.memory.peakMB, 0)} MB.`,
    "",
  ].join("\n");
}
