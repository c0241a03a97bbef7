/**
 * `.hooktap/forward_state.json`: the id of the newest event up to which
 * every forwarded event has settled, so the next `dev` only looks at the
 * events after it for undelivered ones. Settling order differs from arrival
 * order under concurrency; the watermark moves only past events with no
 * earlier one still pending.
 * @module
 */

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
  const tmp = `${path}.tmp`;
  await Deno.writeTextFile(tmp, JSON.stringify(state) + "\n", { mode: 0o600 });
  await Deno.rename(tmp, path);
}

/** Tracks taken and settled events and says how far the watermark may move. */
export class Watermark {
  #outstanding = new Set<string>();
  #settled: string[] = [];
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
    this.#outstanding.add(id);
  }
  /** An event settled; returns true when the watermark moved. */
  settle(id: string): boolean {
    this.#outstanding.delete(id);
    this.#settled.push(id);
    let lowest: string | undefined;
    for (const o of this.#outstanding) if (lowest === undefined || o < lowest) lowest = o;
    let best = this.#mark;
    const keep: string[] = [];
    for (const s of this.#settled) {
      if (lowest === undefined || s < lowest) {
        if (best === undefined || s > best) best = s;
      } else keep.push(s);
    }
    this.#settled = keep;
    const moved = best !== this.#mark;
    this.#mark = best;
    return moved;
  }
}
