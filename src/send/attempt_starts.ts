/**
 * `.hooktap/forward_starts.jsonl`: a line written before each attempt of
 * this run goes out (its delivery id, event and target), so that after a
 * crash or SIGKILL the next `dev` knows which events had an attempt in
 * flight: started here, with no record in the deliveries log. Only those
 * (and events an attempt of which reached the app) are sent again marked
 * "your app may have seen it"; an event that waited in an arrival-order
 * lane behind another never went out, and is a plain delivery.
 *
 * The first line names the run (a token the run's `forward_state.json`
 * repeats: a file left by another run is not taken for this one's) and the
 * deliveries log's size when it started (its records are after it).
 * Emptied at each start of forwarding, and cut back to its head whenever
 * every attempt noted has its record; not fsynced (a kill keeps what the
 * kernel was given).
 * @module
 */
import { describeError, StoreError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";
import { openNoFollow } from "../store/write/no_follow.ts";

/** This run's file, open for writing. */
export interface AttemptStarts {
  /** The run's token, for `forward_state.json`. */
  readonly token: string;
  /**
   * Notes an attempt about to go out; `false` when the line could not be written (the file is then
   * removed: the next start cannot tell what was in flight, and takes every waiting event as maybe seen).
   */
  note(delivery: string, event: CapturedEvent, target: string): boolean;
  /**
   * The attempt's record is written. Once every attempt noted is, the file is cut back to its head (and
   * what it carries): it grows with the attempts in flight, not with the run's length. An attempt whose
   * record could not be written is never marked so: its line stays, and the file is not cut again.
   */
  recorded(delivery: string): void;
  close(): void;
}

interface Header {
  v: 1;
  run: string;
  /** The deliveries log's size when the run started. */
  from: number;
  /** Every event up to this id still waiting may have been seen (an earlier run could not tell which). */
  through?: string;
}

/** What an ended run had in flight, as far as can be told. */
export interface InFlight {
  /** Events with an attempt started and never recorded (or carried so from an earlier run). */
  events: ReadonlySet<string>;
  /** Every event up to this id may have been seen (an earlier run could not tell which). */
  through?: string;
}

/** Whether the event `id` may have had an attempt in flight. */
export function mayHaveBeenInFlight(known: InFlight, id: string): boolean {
  return known.events.has(id) || (known.through !== undefined && id <= known.through);
}

const encoder = new TextEncoder();
/**
 * Empties the file at `path` and starts this run's (the deliveries log is `deliveriesSize` bytes now);
 * `carried`, what earlier runs left in flight that may still wait (they keep their "may have seen it" until
 * they settle).
 * @throws {StoreError} when it cannot be written.
 */
export async function openAttemptStarts(
  path: string,
  deliveriesSize: number,
  carried: InFlight = { events: new Set() },
): Promise<AttemptStarts> {
  const file = await openNoFollow(path, "the attempts-started file", { write: true });
  const header: Header = { v: 1, run: crypto.randomUUID(), from: deliveriesSize };
  if (carried.through !== undefined) header.through = carried.through;
  let writable = true;
  const write = (line: unknown) => {
    const bytes = encoder.encode(JSON.stringify(line) + "\n");
    for (let off = 0; off < bytes.length;) off += file.writeSync(bytes.subarray(off));
  };
  /** The file's length after its head and carried lines. */
  let base = 0;
  /** Attempts noted whose record is not written yet. */
  const open = new Set<string>();
  try {
    await file.truncate(0);
    write(header);
    for (const e of carried.events) write({ d: "", e, t: "" });
    base = await file.seek(0, Deno.SeekMode.Current);
  } catch (error) {
    file.close();
    throw new StoreError(`cannot write ${path}: ${describeError(error)}`, { cause: error });
  }
  return {
    token: header.run,
    note(delivery, event, target) {
      if (!writable) return false;
      try {
        write({ d: delivery, e: event.id, t: target });
        open.add(delivery);
        return true;
      } catch {
        writable = false;
        file.close();
        try {
          Deno.removeSync(path);
        } catch { /* gone already */ }
        return false;
      }
    },
    recorded(delivery) {
      if (!open.delete(delivery) || open.size > 0 || !writable) return;
      try {
        file.truncateSync(base);
        file.seekSync(base, Deno.SeekMode.Start);
      } catch { /* kept whole: the lines of recorded attempts only cost their bytes */ }
    },
    close() {
      if (writable) file.close();
      writable = false;
    },
  };
}

/**
 * The events the run named `token` started an attempt of that has no record in the deliveries log at
 * `deliveriesPath` (in flight when it ended), and those it carried from an earlier run. `undefined` when that cannot be
 * told (no file, another run's, torn head), which the caller takes as "any may have been in flight".
 */
export async function readUnrecorded(
  path: string,
  token: string | undefined,
  deliveriesPath: string,
): Promise<InFlight | undefined> {
  if (token === undefined) return undefined;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  let header: Partial<Header>;
  try {
    header = JSON.parse(lines[0] ?? "");
  } catch {
    return undefined;
  }
  if (header?.v !== 1 || header.run !== token || typeof header.from !== "number") return undefined;
  /** Per delivery id, its event; `carried`: an earlier run's, still waiting (no delivery id). */
  const started = new Map<string, string>();
  const carried: string[] = [];
  for (const line of lines.slice(1)) {
    if (line === "") continue;
    try {
      const { d, e, t } = JSON.parse(line);
      if (typeof d !== "string" || typeof e !== "string" || typeof t !== "string") continue;
      if (d === "") carried.push(e);
      else started.set(d, e);
    } catch { /* a torn last line: written before its attempt went out, or not at all */ }
  }
  const recorded = await _recordedIds(deliveriesPath, header.from, started);
  for (const id of recorded) started.delete(id);
  const events = new Set([...started.values(), ...carried]);
  return typeof header.through === "string" ? { events, through: header.through } : { events };
}

/** Which of `wanted`'s delivery ids have a record in the log at `path` after byte `from`. */
async function _recordedIds(path: string, from: number, wanted: Map<string, string>): Promise<string[]> {
  if (wanted.size === 0) return [];
  let text = "";
  try {
    using file = await Deno.open(path, { read: true });
    const size = (await file.stat()).size;
    const start = Math.min(from, size);
    await file.seek(start, Deno.SeekMode.Start);
    const bytes = new Uint8Array(size - start);
    for (let off = 0; off < bytes.length;) {
      const n = await file.read(bytes.subarray(off));
      if (n === null) break;
      off += n;
    }
    text = new TextDecoder().decode(bytes);
  } catch { /* no log: none recorded */ }
  const found: string[] = [];
  for (const m of text.matchAll(/"id":"(dlv_[^"]+)"/g)) if (wanted.has(m[1]!)) found.push(m[1]!);
  return found;
}
