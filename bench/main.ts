/**
 * `deno task bench`: hooktap beside its limits (issue 5). Write side first
 * (bare Deno.serve, durable ceiling, hooktap dev, in turns), then the read
 * side on a generated store; prints a Markdown report on stdout, progress on
 * stderr, and keeps the raw numbers in bench/.data/results.json.
 *
 *     deno run -A bench/main.ts [--smoke] [--only write|read|forward|breakdown|hub|hostile] [--runs N] [--seconds S] [--events N] [--peer-dir DIR]
 *
 * `--peer-dir DIR` (or `BENCH_PEER_DIR=DIR`): a checkout of cmer/localhook,
 * the Node/Express peer (bench/peer.ts), run as (p) in the write side's turns
 * and in the breakdown; without it the bench says "peer: skipped".
 *
 * `--only hub` runs the hub part alone (ingest, catch-up, added delay).
 *
 * `--only startup` runs the start-up part alone (bench/startup.ts: each command beside an empty script,
 * from a checkout and from the packed npm package, and the start-up graph's module counts).
 * `--only hostile` runs the hostile inputs alone (bench/hostile_rss.ts): RSS
 * growth of dev (both stacks) and the hub under each, beside its bound.
 *
 * `--smoke` runs every part with tiny counts in a temp directory: it asserts
 * that each part works (every request answered 2xx and stored, every command
 * exits 0 and prints what it should), never how fast.
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { pickLoadGenerator } from "./load.ts";
import { PINNED } from "./proc.ts";
import { inspectorReport, type InspectorResults, measureInspector } from "./inspector.ts";
import { measureReadSide, type ReadMeasure } from "./read_side.ts";
import { type ExtraSection, report, type RunInfo } from "./report.ts";
import { ensureDepthStore, ensureLargeStore, measureDepth, measureLarge } from "./extra_stores.ts";
import { ensureStore } from "./store_gen.ts";
import { forwardReport, measureForward } from "./forward.ts";
import { backlogReport, measureBacklog } from "./forward_backlog.ts";
import { hubReport, measureHub } from "./hub.ts";
import { hostileReport, measureHostile } from "./hostile_rss.ts";
import { BODY, githubHeaders } from "./payload.ts";
import { measureStoreSide, storeSideReport } from "./store_side.ts";
import { breakdownReport, measureBreakdown } from "./breakdown.ts";
import { nativeReport, nativeUnavailable } from "./native.ts";
import { batchesReport } from "./batches.ts";
import { devFlags, measureWriteSide, WRITE_CONFIGS, type WriteSideResults } from "./write_side.ts";
import { type Peer, PEER_SKIPPED, peerDir, preparePeer } from "./peer.ts";
import { measureStartup, startupReport } from "./startup.ts";
import { historyReport, measureHistoryPart } from "./inspector_history.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    only: { type: "string" },
    runs: { type: "string" },
    seconds: { type: "string" },
    events: { type: "string" },
    "peer-dir": { type: "string" },
  },
});
const smoke = values.smoke;
const runs = Number(values.runs ?? (smoke ? 1 : 6));
const seconds = Number(values.seconds ?? (smoke ? 1 : 5));
const events = Number(values.events ?? (smoke ? 2_000 : 1_000_000));
const doWrite = values.only === undefined || values.only === "write";
const doRead = values.only === undefined || values.only === "read";
const doForward = values.only === undefined || values.only === "forward";
const doBreakdown = values.only === undefined || values.only === "write" || values.only === "breakdown";
const doHub = values.only === undefined || values.only === "hub";
const doStartup = values.only === undefined || values.only === "startup";
const doHostile = values.only === undefined || values.only === "hostile";
const CONNECTIONS = 64;

// deno-lint-ignore no-console
const log = (line: string) => console.error(line);
const dataDir = smoke
  ? await Deno.makeTempDir({ prefix: "hooktap_bench_smoke_" })
  : fileURLToPath(new URL("./.data", import.meta.url));
await Deno.mkdir(dataDir, { recursive: true });
const scratch = join(dataDir, "scratch");
await Deno.mkdir(scratch, { recursive: true });

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.*)$/m.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

const began = performance.now();
try {
  const generator = pickLoadGenerator();
  let peer: Peer | undefined;
  if (doWrite || doBreakdown) {
    const dir = peerDir(values["peer-dir"]);
    peer = dir === undefined ? undefined : await preparePeer(dir, scratch, log);
    log(peer === undefined ? PEER_SKIPPED : `peer: ${peer.versions}, commit ${peer.commit}`);
  }
  let write: WriteSideResults | undefined;
  if (doWrite) {
    log(`write side: ${generator}, ${runs} turn(s) of ${seconds} s, ${CONNECTIONS} connections`);
    write = await measureWriteSide({
      generator,
      runs,
      seconds,
      warmupSeconds: smoke ? 0 : 1,
      connections: CONNECTIONS,
      scratch: join(scratch, "write"),
      configs: peer ? [...WRITE_CONFIGS, peer.config] : WRITE_CONFIGS,
      log,
    });
  }
  let read: ReadMeasure[] | undefined;
  const extras: ExtraSection[] = [];
  let storeBytes = 0;
  let coldEndpointMs: number | undefined;
  let inspector: InspectorResults | undefined;
  let historyText = "";
  let storeSection = "";
  if (doRead) {
    log(`read side: store of ${events} events`);
    const store = await ensureStore(dataDir, events, log);
    log(
      `  ${store.generated ? "generated" : "reused"} ${store.dir} (${
        (store.meta.bytes / 1e9).toFixed(2)
      } GB)`,
    );
    storeBytes = store.meta.bytes;
    const r = await measureReadSide({
      dir: store.dir,
      meta: store.meta,
      runs: smoke ? 1 : 15,
      warmup: smoke ? 0 : 2,
      scratch,
      log,
    });
    read = r.measures;
    coldEndpointMs = r.coldEndpointMs;
    // Issue 15: endpoints whose only event lies at several depths, on a store `dev` never opened.
    const depthCount = smoke ? 3_000 : 300_000;
    const depth = await ensureDepthStore(dataDir, depthCount, log);
    const timing = { runs: smoke ? 1 : 10, warmup: smoke ? 0 : 1, scratch, log };
    extras.push({
      title: `On a store \`dev\` never opened (${depthCount.toLocaleString("en-US")} events, ${
        (depth.bytes / 1e6).toFixed(0)
      } MB, no index), each endpoint's only event on line 6, in the middle, 1,000 lines from the end:`,
      rows: await measureDepth(depth, timing),
    });
    // Issue 9: events of several MiB among small ones.
    const mib = smoke ? [2] : [5, 30];
    const large = await ensureLargeStore(dataDir, smoke ? 300 : 2_000, mib, log);
    extras.push({
      title: `On a store with large events (${large.count.toLocaleString("en-US")} events, ${
        mib.map((m) => `one of ${m} MiB`).join(", ")
      }; ${(large.bytes / 1e6).toFixed(0)} MB):`,
      rows: await measureLarge(large, mib, timing),
    });
    log("inspector: API, first paint, live delay, memory");
    inspector = await measureInspector({
      dir: store.dir,
      meta: store.meta,
      runs: smoke ? 1 : 15,
      deepPages: smoke ? 30 : 2000,
      scratch,
      log,
    });
    log("inspector: a month of delivery history");
    historyText = historyReport(await measureHistoryPart({ dataDir, events: smoke ? 2_000 : 143_000, log }));
    log("store side: search, count, export, prune");
    storeSection = storeSideReport(
      await measureStoreSide({ dir: store.dir, meta: store.meta, runs: smoke ? 1 : 5, scratch, log }),
      store.meta.bytes,
    );
  }
  const info: RunInfo = {
    command: `deno task bench${smoke ? ":smoke" : ""}${
      Deno.args.filter((a) => a !== "--smoke").map((a) => ` ${a}`).join("")
    }`,
    date: new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC",
    cpus: navigator.hardwareConcurrency,
    cpuModel: cpuModel(),
    deno: Deno.version.deno,
    loadGenerator: generator === "wrk" ? "wrk (Debian package)" : "autocannon 8 (npm, under Deno)",
    loads: doWrite || doForward || doBreakdown || doHub || doHostile,
    devCommand: `deno run ${devFlags().join(" ")} main.ts dev --quiet --port PORT`,
    peer: peer
      ? `(p) the Node/Express peer: cmer/localhook ${peer.commit} (${peer.versions}), ` +
        `\`${peer.command}\`, listen bound to 127.0.0.1 in a copy (bench/peer.ts)`
      : doWrite || doBreakdown
      ? PEER_SKIPPED
      : "peer: not part of this run (write side and breakdown only)",
    pinned: PINNED,
    connections: CONNECTIONS,
    runs,
    seconds,
    events,
    storeBytes,
    coldEndpointMs,
  };
  let forwardText = "";
  if (doForward) {
    log("forwarding: added delay and throughput");
    const dir = join(scratch, "forward");
    await Deno.mkdir(dir, { recursive: true });
    const bodyFile = join(dir, "body.json");
    const headersFile = join(dir, "headers.txt");
    await Deno.writeTextFile(bodyFile, BODY);
    await Deno.writeTextFile(headersFile, (await githubHeaders()).map(([k, v]) => `${k}: ${v}\n`).join(""));
    const m = await measureForward({
      generator,
      seconds,
      samples: smoke ? 20 : 1000,
      rounds: runs,
      connections: CONNECTIONS,
      scratch: dir,
      bodyFile,
      headersFile,
      log,
    });
    forwardText = "\n" + forwardReport(m);
    // Issue 36.5: the memory of 20,000 events waiting for a down target, beside its 40 MB target.
    const backlog = await measureBacklog({ scratch: dir, events: smoke ? 200 : 20_000, log });
    if (smoke && (backlog.deliveredInOrder !== backlog.events || backlog.duplicates !== 0)) {
      throw new Error(`forward backlog: ${backlog.deliveredInOrder}/${backlog.events} in order`);
    }
    forwardText += "\n" + backlogReport(backlog);
  }
  let breakdownText = "";
  if (doBreakdown) {
    log("breakdown: CPU per request by thread, system calls per request (ceiling beside dev)");
    const dir = join(scratch, "breakdown");
    await Deno.mkdir(dir, { recursive: true });
    const bodyFile = join(dir, "body.json");
    const headersFile = join(dir, "headers.txt");
    await Deno.writeTextFile(bodyFile, BODY);
    await Deno.writeTextFile(headersFile, (await githubHeaders()).map(([k, v]) => `${k}: ${v}\n`).join(""));
    const results = await measureBreakdown({
      generator,
      seconds,
      connections: CONNECTIONS,
      scratch: dir,
      bodyFile,
      headersFile,
      log,
      ...(peer ? { peer: peer.config } : {}),
      native: !smoke,
    });
    for (const r of results) {
      if (!(r.requests > 0) || r.threads.length === 0) {
        throw new Error(`breakdown of ${r.label}: nothing measured`);
      }
    }
    breakdownText = "\n" + breakdownReport(results) + "\n" +
      nativeReport(results.flatMap((r) => r.native ? [r.native] : []), nativeUnavailable()) + "\n" +
      batchesReport(results.flatMap((r) => r.batches ? [r.batches] : []));
  }
  let hubText = "";
  if (doHub) {
    log("hub: ingest, catch-up, added delay");
    const dir = join(scratch, "hub");
    await Deno.mkdir(dir, { recursive: true });
    const bodyFile = join(dir, "body.json");
    const headersFile = join(dir, "headers.txt");
    await Deno.writeTextFile(bodyFile, BODY);
    await Deno.writeTextFile(headersFile, (await githubHeaders()).map(([k, v]) => `${k}: ${v}\n`).join(""));
    hubText = hubReport(
      await measureHub({
        smoke,
        scratch: dir,
        log,
        generator: pickLoadGenerator(),
        seconds,
        bodyFile,
        headersFile,
      }),
    );
  }
  let startupText = "";
  if (doStartup) {
    log("start-up: commands beside an empty script, module counts");
    const dir = join(scratch, "startup");
    await Deno.mkdir(dir, { recursive: true });
    const results = await measureStartup({ runs: smoke ? 1 : 15, scratch: dir, npm: !smoke, log });
    if (results.rows.some((r) => !(r.ratio > 0))) throw new Error("start-up: a ratio was not measured");
    startupText = "\n" + startupReport(results);
  }
  let hostileText = "";
  if (doHostile) {
    log("hostile inputs: RSS growth beside each bound (dev on both stacks, the hub)");
    hostileText = "\n" + hostileReport(await measureHostile({ small: smoke, log }));
  }
  const text = report(info, write, read, extras) + breakdownText + forwardText +
    (inspector ? inspectorReport(inspector) : "") + historyText + storeSection + hubText + startupText +
    hostileText;
  // deno-lint-ignore no-console
  console.log(text);
  if (!smoke) {
    await Deno.writeTextFile(
      join(dataDir, "results.json"),
      JSON.stringify({ info, write: write && Object.fromEntries(write), read, inspector }, null, 2) + "\n",
    );
    await Deno.writeTextFile(join(dataDir, "results.md"), text);
  }
  log(`${smoke ? "smoke" : "bench"} finished in ${((performance.now() - began) / 1000).toFixed(0)} s`);
} finally {
  if (smoke) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  else await Deno.remove(scratch, { recursive: true }).catch(() => {});
}
