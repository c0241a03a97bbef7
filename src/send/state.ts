/**
 * `.hooktap/forward_state.json`: the id of the newest event up to which
 * every forwarded event has settled, so the next `dev` only looks at the
 * events after it for undelivered ones. Settling order differs from arrival
 * order under concurrency; the watermark moves only past events with no
 * earlier one still pending.
 * @module
 */
import { writeFileReplacing } from "../store/write/no_follow.ts";

/** The file's content. */
export interface ForwardState {
  v: 1;
  /** Every forwarded event with an id ≤ this one has settled. */
  settledThrough: string;
}

/** Reads the watermark, or `undefined` when there is none (or it is unreadable: look at everything). */
export async function readForwardState(path: string): Promise<ForwardState | undefined> {
  try {
    const value = JSON.parse(await Deno.readTextFile(path)) as Partial<ForwardState>;
    if (value.v === 1 && typeof value.settledThrough === "string") return value as ForwardState;
  } catch { /* none yet, or torn: scan everything */ }
  return undefined;
}

/** Writes the watermark atomically (temp file, rename). */
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
