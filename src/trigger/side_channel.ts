/**
 * The side channel between `trigger` and `dev`: before each delivery,
 * `trigger` tells `dev` (over `.hooktap/control.sock`) the SHA-256 of the
 * body it is about to send and what it is (event, fault, attempt). `dev`
 * marks the next stored event with that body, so `logs` and `inspect` show
 * the fault while the app sees exactly what the provider would send.
 * @module
 */
import { sha256Hex, toHex } from "../providers/hmac.ts";
import type { StorePaths } from "../store/paths.ts";
import { sendControlNote } from "../store/write/control.ts";
import type { TriggerMark } from "../event/record.ts";
import type { PlannedDelivery } from "./run.ts";

/** A note as it travels. */
export interface TriggerNote extends TriggerMark {
  /** SHA-256 of the body, hex. */
  body: string;
}

/** Tells the `dev` of `paths` about a delivery about to be sent. */
export async function tellDev(paths: StorePaths, d: PlannedDelivery & { body: Uint8Array }): Promise<void> {
  const note: TriggerNote = {
    event: d.event,
    attempt: d.attempt,
    ...(d.fault ? { fault: d.fault } : {}),
    // WebCrypto: trigger never loads node:crypto (dev's side below hashes synchronously, the same SHA-256).
    body: toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(d.body)))),
  };
  await sendControlNote(paths, note);
}

/** `dev`'s side: the notes waiting for their event, each kept a minute at most. */
export interface TriggerNotes {
  add(note: unknown): void;
  /** The mark of the note of the body `body()` gives (consumed), or `undefined`; `body` is read only when notes wait. */
  take(body: () => Uint8Array): TriggerMark | undefined;
}

/** A store of notes, oldest first. */
export function triggerNotes(now: () => number = Date.now): TriggerNotes {
  const notes: (TriggerNote & { at: number })[] = [];
  return {
    add(value) {
      const n = value as Partial<TriggerNote>;
      if (typeof n?.body !== "string" || typeof n.event !== "string") return;
      notes.push({
        body: n.body,
        event: n.event.slice(0, 200),
        attempt: typeof n.attempt === "number" ? n.attempt : 0,
        ...(typeof n.fault === "string" ? { fault: n.fault.slice(0, 40) } : {}),
        at: now(),
      });
      if (notes.length > 1000) notes.shift();
    },
    take(body) {
      while (notes.length > 0 && now() - notes[0]!.at > 60_000) notes.shift();
      if (notes.length === 0) return undefined;
      const hash = sha256Hex(body());
      const i = notes.findIndex((n) => n.body === hash);
      if (i < 0) return undefined;
      const { event, attempt, fault } = notes.splice(i, 1)[0]!;
      return { event, attempt, ...(fault ? { fault } : {}) };
    },
  };
}
