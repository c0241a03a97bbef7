/**
 * The read side's other stores (issues 9 and 15), generated once under
 * `bench/.data/` and never opened by `hooktap dev`:
 *
 * - **depth**: N events (300,000) where endpoints `rare-start`, `rare-mid` and
 *   `rare-end` have one event each, on line 6, in the middle and 1,000 lines
 *   from the end. `inspect --endpoint` is timed on each: once without
 *   `.hooktap/index.json` (the first lookup, which keeps the index), then
 *   with it; and read-only (no write permission: no index is ever kept).
 * - **large**: 2,000 small events with a 5 MiB one (#500) and a 30 MiB one
 *   (#1,500): `inspect` of each big one, of the events beside them, of an
 *   early one, of an unknown id; `inspect --endpoint`; `logs`.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Kind } from "./store_events.ts";
import { generate } from "./store_gen.ts";
import { type CommandTiming, runOnce, type RunOutput, timeCommand } from "./timing.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const DENO = Deno.execPath();
const enc = new TextEncoder();
/** Bump when the generated content changes. */
const VERSION = 2; // 2: `ids.last`, the newest event's id

/** One event of its own endpoint, with a JSON body of about `bytes` bytes (escapes included). */
function single(endpoint: string, bytes = 0): Kind {
  return {
    endpoint,
    make(i) {
      const text = bytes === 0
        ? `{"event":"ping","n":${i}}`
        : JSON.stringify({ event: "export", rows: 'row,"quoted",\\n'.repeat(Math.ceil(bytes / 15)) });
      const body = enc.encode(text);
      return {
        headers: [["content-type", "application/json"], ["content-length", String(body.length)]],
        body,
      };
    },
  };
}

/** A generated store: its directory and the ids the measures look for. */
export interface ExtraStore {
  dir: string;
  bytes: number;
  count: number;
  /** Id of each special record, by name. */
  ids: Record<string, string>;
}

async function ensure(
  dataDir: string,
  name: string,
  count: number,
  special: Map<number, [string, Kind]>,
  log: (line: string) => void,
): Promise<ExtraStore> {
  const dir = join(dataDir, name);
  const metaFile = join(dir, "meta.json");
  const events = join(dir, ".hooktap/events.jsonl");
  try {
    const meta = JSON.parse(await Deno.readTextFile(metaFile)) as ExtraStore & { version: number };
    if (meta.version === VERSION && meta.bytes === (await Deno.stat(events)).size) return meta;
  } catch {
    // none yet: generate
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(join(dir, ".hooktap"), { recursive: true, mode: 0o700 });
  const kinds = new Map([...special].map(([i, [, kind]]) => [i, kind]));
  const meta = await generate(events, count, log, kinds);
  const ids: Record<string, string> = {};
  for (const [i, [key]] of special) ids[key] = meta.specialIds.get(i)!;
  ids.last = meta.lastIds.at(-1)!; // what `logs` prints last
  const store: ExtraStore = { dir, bytes: meta.bytes, count, ids };
  await Deno.writeTextFile(metaFile, JSON.stringify({ version: VERSION, ...store }, null, 2) + "\n");
  log(`  generated ${dir} (${(meta.bytes / 1e6).toFixed(0)} MB)`);
  return store;
}

/** The depth store: `count` events, `rare-*` endpoints at line 6, the middle and near the end. */
export function ensureDepthStore(dataDir: string, count: number, log: (line: string) => void) {
  const at = { start: 5, mid: Math.floor(count / 2), end: count - 1000 };
  return ensure(
    dataDir,
    `depth-${count}`,
    count,
    new Map(Object.entries(at).map(([k, i]) => [i, [`rare-${k}`, single(`rare-${k}`)]])),
    log,
  );
}

/** The large-event store: `count` events, big ones of `mib` MiB at 1/4 and 3/4 of it. */
export function ensureLargeStore(dataDir: string, count: number, mib: number[], log: (line: string) => void) {
  const special = new Map<number, [string, Kind]>([[10, ["early", single("early")]]]);
  mib.forEach((m, k) => {
    const i = Math.floor((count * (k * 2 + 1)) / (mib.length * 2));
    special.set(i - 1, [`before-${m}`, single(`near-${m}`)]);
    special.set(i, [`big-${m}`, single(`big-${m}`, m * 1024 * 1024)]);
    special.set(i + 1, [`after-${m}`, single(`near-${m}`)]);
  });
  return ensure(dataDir, `large-${count}-${mib.join("-")}`, count, special, log);
}

/** One measured row. */
export interface ExtraMeasure {
  label: string;
  timing: CommandTiming;
  /** Target wall time over the floor, in ms (when there is one). */
  limitMs?: number;
}

function expect(what: string, needle: string): (out: RunOutput) => void {
  return (out) => {
    if (!out.stdout.includes(needle) && !out.stderr.includes(needle)) {
      throw new Error(`${what} did not print ${needle}:\n${out.stdout.slice(0, 500)}${out.stderr}`);
    }
  };
}

const hooktap = (perms: string[], ...args: string[]) => [DENO, "run", ...perms, MAIN, ...args];
// hooktap's own modules are read as a command needs them (src/cli/lazy.ts), from outside the store's directory.
const CODE = `--allow-read=${fileURLToPath(new URL("../src", import.meta.url))}`;
const RW = ["--allow-read=.", CODE, "--allow-write=.hooktap", "--allow-env"];
const RO = ["--allow-read=.", CODE, "--allow-env"];

/** `inspect --endpoint rare-*` on the depth store: first (no index), with the index, read-only. */
export async function measureDepth(
  store: ExtraStore,
  o: { runs: number; warmup: number; scratch: string; log: (line: string) => void },
): Promise<ExtraMeasure[]> {
  const out: ExtraMeasure[] = [];
  const index = join(store.dir, ".hooktap/index.json");
  for (const where of ["start", "mid", "end"]) {
    const name = `rare-${where}`;
    const id = store.ids[name]!;
    const argv = (perms: string[]) => hooktap(perms, "inspect", "--endpoint", name);
    await Deno.remove(index).catch(() => {});
    const first = await runOnce(argv(RW), store.dir, o.scratch);
    expect(`inspect --endpoint ${name}`, id)(first);
    if (!(await Deno.stat(index).then(() => true, () => false))) {
      throw new Error(`inspect --endpoint ${name} kept no ${index}`);
    }
    out.push({
      label: `inspect --endpoint ${name}, first (keeps the index)`,
      timing: { ms: [first.ms], peakRssKiB: [first.rssKiB] },
    });
    const check = expect(`inspect --endpoint ${name}`, id);
    const warm = await timeCommand(argv(RW), { cwd: store.dir, ...o, check });
    out.push({ label: `inspect --endpoint ${name}, then`, timing: warm, limitMs: 100 });
    await Deno.remove(index).catch(() => {});
    const ro = await timeCommand(argv(RO), { cwd: store.dir, scratch: o.scratch, runs: 3, warmup: 0, check });
    out.push({ label: `inspect --endpoint ${name}, read-only, no index`, timing: ro });
    o.log(`  depth ${name}: first ${first.ms.toFixed(0)} ms`);
  }
  return out;
}

/** Lookups on the large-event store. */
export async function measureLarge(
  store: ExtraStore,
  mib: number[],
  o: { runs: number; warmup: number; scratch: string; log: (line: string) => void },
): Promise<ExtraMeasure[]> {
  const plan: [string, string[], string, number | undefined][] = [];
  for (const m of mib) {
    for (const k of [`big-${m}`, `before-${m}`, `after-${m}`]) {
      plan.push([
        `inspect <${k}>`,
        ["inspect", store.ids[k]!],
        store.ids[k]!,
        k.startsWith("big") ? undefined : 100,
      ]);
    }
  }
  const early = store.ids["early"]!;
  const unknown = early.slice(0, 13) + "7ZZZZZZZZZZZZZZZZZZZZZZZZZ";
  plan.push(
    ["inspect <early>", ["inspect", early], early, 100],
    [`inspect --endpoint early`, ["inspect", "--endpoint", "early"], early, 100],
    // The newest event's id (a date prefix of another event's failed when the store's span crossed midnight).
    ["logs (last 20)", ["logs"], store.ids.last!, 100],
  );
  const out: ExtraMeasure[] = [];
  for (const [label, args, needle, limitMs] of plan) {
    const timing = await timeCommand(hooktap(RW, ...args), {
      cwd: store.dir,
      ...o,
      check: expect(label, needle),
    });
    out.push(limitMs === undefined ? { label, timing } : { label, timing, limitMs });
  }
  // An unknown id: exits 1 by design, so timed here by hand.
  const ms: number[] = [];
  for (let i = 0; i < o.warmup + o.runs; i++) {
    const t = performance.now();
    const r = await new Deno.Command(DENO, {
      args: hooktap(RW, "inspect", unknown).slice(1),
      cwd: store.dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (r.code !== 1) throw new Error(`inspect <unknown id> exited ${r.code}`);
    if (i >= o.warmup) ms.push(performance.now() - t);
  }
  out.push({ label: "inspect <unknown id>", timing: { ms, peakRssKiB: ms.map(() => NaN) }, limitMs: 100 });
  o.log(`  large: ${out.length} lookups measured`);
  return out;
}
