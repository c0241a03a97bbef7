/**
 * The read side's store: N valid v1 records (built by hooktap's own record
 * code) of realistic sizes from several endpoints, written once into
 * `bench/.data/store-N/` and reused while the generator's version matches.
 *
 * `hooktap dev` then builds its `.hooktap/index.json`, as for a log it wrote.
 *
 * Layout of the file, which the read-side measurements rely on:
 * - record #9 is the only event of endpoint `legacy` (its latest is near the start);
 * - record #100 is the id that `inspect <id>` and `replay` look up (near the start);
 * - the rest cycle through github, stripe, shopify, slack, twilio and a few binary uploads.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createIdFactory } from "../src/event/id.ts";
import { buildEvent, eventLine } from "../src/event/record.ts";
import { githubHeaders } from "./payload.ts";
import { type Kind, kinds, legacy, STORE_CONFIG } from "./store_events.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const enc = new TextEncoder();

/** Bump when the generated content changes, so old stores are regenerated. */
const GENERATOR_VERSION = 1;

/** What the read side needs to know about a generated store. */
export interface StoreMeta {
  version: number;
  count: number;
  bytes: number;
  /** The id looked up by `inspect <id>` and `replay` (record #100). */
  nearStartId: string;
  /** Endpoint whose only (so latest) event is record #9. */
  earlyEndpoint: string;
  earlyEndpointId: string;
  /** Ids of the last 20 records, oldest first. */
  lastIds: string[];
}

/** Where the store of `count` events lives under `dataDir`. */
export function storeDir(dataDir: string, count: number): string {
  return join(dataDir, `store-${count}`);
}

/** Generates the store (unless a matching one is there) and returns what the read side needs. */
export async function ensureStore(
  dataDir: string,
  count: number,
  log: (line: string) => void = () => {},
): Promise<{ dir: string; meta: StoreMeta; generated: boolean }> {
  const dir = storeDir(dataDir, count);
  const metaFile = join(dir, "meta.json");
  try {
    const meta = JSON.parse(await Deno.readTextFile(metaFile)) as StoreMeta;
    const size = (await Deno.stat(join(dir, ".hooktap/events.jsonl"))).size;
    if (meta.version === GENERATOR_VERSION && meta.count === count && meta.bytes === size) {
      if (!(await Deno.stat(join(dir, ".hooktap/index.json")).then(() => true, () => false))) {
        await indexWithDev(dir, log);
      }
      return { dir, meta, generated: false };
    }
  } catch {
    // none yet, or unreadable: generate
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(join(dir, ".hooktap"), { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(join(dir, ".hooktap/.gitignore"), "*\n");
  await Deno.writeTextFile(join(dir, "hooktap.config.ts"), STORE_CONFIG);
  const { specialIds: _, ...meta } = await generate(join(dir, ".hooktap/events.jsonl"), count, log);
  await indexWithDev(dir, log);
  await Deno.writeTextFile(metaFile, JSON.stringify(meta, null, 2) + "\n");
  return { dir, meta, generated: true };
}

/**
 * Lets `hooktap dev` build `.hooktap/index.json` for the generated log, as
 * it keeps it for a log it wrote itself: starts it on a free port, waits for
 * the index, stops it.
 */
async function indexWithDev(dir: string, log: (line: string) => void): Promise<void> {
  const began = performance.now();
  const index = join(dir, ".hooktap/index.json");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "dev", "--quiet", "--port", "0"],
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let exited = false;
  child.status.then(() => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`hooktap dev stopped before writing ${index}:\n${await stderr}`);
      if (performance.now() - began > 300_000) throw new Error(`hooktap dev wrote no ${index} in 5 minutes`);
      if (await Deno.stat(index).then(() => true, () => false)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    if (!exited) child.kill("SIGTERM");
    await child.status;
    await stderr;
  }
  log(`  hooktap dev built ${index} in ${((performance.now() - began) / 1000).toFixed(1)} s`);
}

/**
 * Writes a log of `count` records to `path`; record `i` of `special` is of
 * that kind instead of the cycle's (by default #9 is `legacy`'s only event).
 * @returns the meta, and the ids of the special records by index.
 */
export async function generate(
  path: string,
  count: number,
  log: (line: string) => void,
  special: Map<number, Kind> = new Map([[9, legacy()]]),
): Promise<StoreMeta & { specialIds: Map<number, string> }> {
  const cycle = kinds(await githubHeaders());
  const early = special.get(9) ?? legacy();
  const specialIds = new Map<number, string>();
  const newId = createIdFactory();
  const spacingMs = 2_500; // one event every 2.5 s: 1M events span about 29 days
  const start = Date.now() - count * spacingMs - 60_000;
  const tmp = `${path}.partial`;
  const file = await Deno.open(tmp, { write: true, create: true, truncate: true, mode: 0o600 });
  let chunk: string[] = [];
  let chunkChars = 0;
  let bytes = 0;
  const flush = async () => {
    const data = enc.encode(chunk.join(""));
    for (let off = 0; off < data.length;) off += await file.write(data.subarray(off));
    bytes += data.length;
    chunk = [];
    chunkChars = 0;
  };
  const meta: StoreMeta = {
    version: GENERATOR_VERSION,
    count,
    bytes: 0,
    nearStartId: "",
    earlyEndpoint: early.endpoint,
    earlyEndpointId: "",
    lastIds: [],
  };
  const began = performance.now();
  for (let i = 0; i < count; i++) {
    const at = new Date(start + i * spacingMs + (i * 7919) % 1000);
    const kind = special.get(i) ?? cycle[i % cycle.length]!;
    const { headers, body } = kind.make(i, at);
    const id = newId(at);
    if (special.has(i)) specialIds.set(i, id);
    if (i === 9) meta.earlyEndpointId = id;
    if (i === 100) meta.nearStartId = id;
    if (i >= count - 20) meta.lastIds.push(id);
    const line = eventLine(buildEvent({
      id,
      endpoint: kind.endpoint,
      receivedAt: at,
      method: "POST",
      path: `/${kind.endpoint}`,
      query: i % 4 === 0 ? `delivery=${i}` : "",
      headers,
      body,
      remoteAddr: "127.0.0.1",
    }));
    chunk.push(line);
    chunkChars += line.length;
    if (chunkChars > 4_000_000) await flush();
    if (i > 0 && i % 100_000 === 0) {
      log(
        `  generated ${i} events (${(bytes / 2 ** 30).toFixed(2)} GiB) in ${
          ((performance.now() - began) / 1000).toFixed(0)
        } s`,
      );
    }
  }
  await flush();
  await file.syncData();
  file.close();
  await Deno.rename(tmp, path);
  meta.bytes = bytes;
  return { ...meta, specialIds };
}
