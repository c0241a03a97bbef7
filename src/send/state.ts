/**
 * `.hooktap/forward_state.json`: the id of the newest event up to which
 * every forwarded event has settled, so the next `dev` only looks at the
 * events after it for undelivered ones, and whether the last run stopped
 * cleanly (so the next knows whether the app may have seen what waits).
 * Settling order differs from arrival order under concurrency; the
 * watermark moves only past events with no earlier one still pending.
 * @module
 */
import { writeFileReplacing } from "../store/write/no_follow.ts";

/**
 * How the run that wrote the file left forwarding: `running` from the start
 * of `dev`'s forwarding on (a crash or kill leaves it so); `clean` once it
 * stopped with every attempt it started recorded (none abandoned in flight)
 * and nothing it resumed from an earlier unclean run still waiting.
 */
export type ForwardRun = "running" | "clean";

/** The file's content. */
export interface ForwardState {
  v: 1;
  /**
   * Every forwarded event with an id ≤ this one has settled. Absent while
   * none has (older hooktap reads a file without it as no watermark).
   */
  settledThrough?: string;
  /**
   * How the last run left forwarding; absent in files of hooktap before it
   * was written (read as not clean: the app may have seen what waits).
   */
  run?: ForwardRun;
}

/**
 * Reads the file, or `undefined` when there is none (or it is unreadable: look at everything and take the
 * last run as not clean). A `run` this version does not know is left out (not clean).
 */
export async function readForwardState(path: string): Promise<ForwardState | undefined> {
  try {
    const value = JSON.parse(await Deno.readTextFile(path)) as Partial<Record<keyof ForwardState, unknown>>;
    if (typeof value !== "object" || value === null || value.v !== 1) return undefined;
    const mark = value.settledThrough;
    if (mark !== undefined && typeof mark !== "string") return undefined;
    const run = value.run === "running" || value.run === "clean" ? value.run : undefined;
    return {
      v: 1,
      ...(mark !== undefined ? { settledThrough: mark } : {}),
      ...(run !== undefined ? { run } : {}),
    };
  } catch { /* none yet, or torn: scan everything */ }
  return undefined;
}

/** Whether the run that wrote `state` stopped cleanly for forwarding (see {@linkcode ForwardRun}). */
export function stoppedCleanly(state: ForwardState | undefined): boolean {
  return state?.run === "clean";
}

/**
 * Whether `error`, from writing the state file at `path`, is only its directory being gone (`rm -rf .hooktap`
 * while dev runs): dev stops for that and says why, so it is no write error of the forwarder's to report.
 */
export async function directoryGone(path: string, error: unknown): Promise<boolean> {
  if (!(error instanceof Deno.errors.NotFound)) return false;
  const dir = path.slice(0, Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")));
  try {
    await Deno.stat(dir === "" ? "." : dir);
    return false;
  } catch (statError) {
    return statError instanceof Deno.errors.NotFound;
  }
}

/** Writes the file atomically (temp file, rename). */
export async function writeForwardState(path: string, state: ForwardState): Promise<void> {
  // An exclusive temp file with an unpredictable name, renamed over the path: never through a link.
  await writeFileReplacing(path, JSON.stringify(state) + "\n");
}

/**
 * Tracks taken and settled events and says how far the watermark may move.
 * Ids are kept sorted (they are taken in arrival order, so inserting is an
 * append) and the mark moves over the settled ones at the front: constant
 * work per event however long the backlog (it was a scan of every pending
 * event per settle, the forwarder's top cost under load).
 */
export class Watermark {
  /** Taken ids not yet passed by the mark, ascending, from `#head`. */
  #queue: string[] = [];
  #head = 0;
  #outstanding = new Set<string>();
  #settled = new Set<string>();
  #mark: string | undefined;
  constructor(mark?: string) {
    this.#mark = mark;
  }
  /** The current watermark. */
  get mark(): string | undefined {
    return this.#mark;
  }
  /** An event was taken for delivery. */
  take(id: string): void {
    if (this.#outstanding.has(id)) return;
    this.#outstanding.add(id);
    this.#insert(id);
  }
  /** An event settled; returns true when the watermark moved. */
  settle(id: string): boolean {
    if (!this.#outstanding.delete(id)) this.#insert(id); // never taken: counts from now
    this.#settled.add(id);
    const q = this.#queue;
    let best = this.#mark;
    while (this.#head < q.length && this.#settled.has(q[this.#head]!)) {
      const s = q[this.#head++]!;
      this.#settled.delete(s);
      if (best === undefined || s > best) best = s;
    }
    if (this.#head > 1024 && this.#head * 2 > q.length) {
      this.#queue = q.slice(this.#head);
      this.#head = 0;
    }
    const moved = best !== this.#mark;
    this.#mark = best;
    return moved;
  }
  #insert(id: string): void {
    const q = this.#queue;
    if (q.length === this.#head || q[q.length - 1]! <= id) {
      q.push(id);
      return;
    }
    let lo = this.#head, hi = q.length; // first index whose id is > id
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (q[mid]! <= id) lo = mid + 1;
      else hi = mid;
    }
    q.splice(lo, 0, id);
  }
}
