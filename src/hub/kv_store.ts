/**
 * The hub's storage on Deno KV. The key schema (room for several clients
 * per channel, retention and limits, issue 28):
 *
 * - `["hub","channel",ch]` → {@linkcode ChannelRecord} (the token's SHA-256, never the token)
 * - `["hub","head",ch]` → the last sequence number given out (a number)
 * - `["hub","event",ch,seq]` → {@linkcode StoredEvent}: the request, its body inline when small
 * - `["hub","chunk",ch,blob,i]` → 64,000-byte pieces of a larger body, written before its event
 * - `["hub","cursor",ch,client]` → {@linkcode ClientCursor}: what a client acknowledged
 *
 * Order: an event's sequence number is assigned in the same atomic commit
 * that stores it, checked against the head's versionstamp, so commit order
 * and sequence order are the same and a reader listing `seq > cursor` can
 * never skip an event a concurrent writer commits later. Events that arrive
 * while a commit is in flight share the next one (group commit).
 *
 * The storage cap: the same commit checks the channel's usage counter
 * (`["hub","usage",ch]`) by its versionstamp and adds the batch to it, and
 * an event that would take the usage over the cap is refused
 * ({@linkcode ChannelFullError}) instead of committed. So the cap holds
 * against concurrent senders, and against several hub processes on one KV:
 * a commit by any of them (or a trim) changes the counter and the others'
 * commits are checked again.
 * @module
 */

import { addTo, storedBytes, usageEntry } from "./team.ts";

/** A channel as stored. */
export interface ChannelRecord {
  tokenHash: Uint8Array;
  createdAt: string;
}

/** One received request, as stored. */
export interface StoredEvent {
  seq: number;
  receivedAt: string;
  method: string;
  /** Path after the channel prefix (`/webhook`), percent-encoding kept. */
  path: string;
  /** Raw query without `?`. */
  query: string;
  headers: [string, string][];
  remoteAddr: string;
  size: number;
  /** The body, when it fits in the event's value. */
  body?: Uint8Array;
  /** Otherwise the chunks' blob id and count. */
  blob?: string;
  chunks?: number;
}

/** A new event before it has a sequence number. */
export type NewEvent = Omit<StoredEvent, "seq" | "body" | "blob" | "chunks"> & { body: Uint8Array };

/** A client's acknowledged position. */
export interface ClientCursor {
  seq: number;
  at: string;
}

/** Largest body kept inside the event's own value. */
const INLINE_BODY = 32 * 1024;
/** Size of one body chunk (KV values hold at most 64 KiB). */
export const CHUNK = 64_000;
/** Budget of one atomic commit (KV allows about 800 KiB). */
const COMMIT_BYTES = 600 * 1024;
const COMMIT_EVENTS = 400;
/** How long a channel's record is reused before it is read again. */
const CHANNEL_CACHE_MS = 5000;
/** Largest request head (path, query, headers) the hub stores. */
export const MAX_HEAD_BYTES = 48 * 1024;

/** The head of a request is larger than one KV value can hold. */
export class HeadTooLargeError extends Error {}

/** The event would take the channel's storage over its cap (checked in the commit that would store it). */
export class ChannelFullError extends Error {}

function headSize(e: Pick<StoredEvent, "path" | "query" | "headers">): number {
  let n = e.path.length + e.query.length;
  for (const [k, v] of e.headers) n += k.length + v.length + 8;
  return n;
}

interface Pending {
  event: Omit<StoredEvent, "seq">;
  bytes: number;
  /** What it adds to the channel's usage, and the cap that usage may reach. */
  cost: number;
  cap: number;
  resolve(seq: number): void;
  reject(error: unknown): void;
}

/** The hub's KV store. */
export interface HubStore {
  readonly kv: Deno.Kv;
  createChannel(id: string, tokenHash: Uint8Array): Promise<void>;
  channel(id: string): Promise<ChannelRecord | null>;
  /** Forgets the cached record of `id` (its token changed or it was deleted). */
  forget(id: string): void;
  /**
   * Stores an event (chunks first, then the event); resolves to its sequence number once committed.
   * @throws {ChannelFullError} when the channel's usage plus the event would pass `options.maxChannelBytes`.
   */
  append(channel: string, event: NewEvent, options?: { maxChannelBytes?: number }): Promise<number>;
  /** Events after `after`, in order, at most `limit` of them and about `maxBytes` of body (at least one). */
  read(
    channel: string,
    after: number,
    options?: { limit?: number; maxBytes?: number },
  ): Promise<StoredEvent[]>;
  /** The body of a stored event. */
  body(channel: string, event: StoredEvent): Promise<Uint8Array>;
  head(channel: string): Promise<number>;
  ack(channel: string, client: string, seq: number): Promise<void>;
  cursor(channel: string, client: string): Promise<ClientCursor | null>;
  /** Resolves when `channel` gets an event after `after` (in this process), or `signal` aborts. */
  changed(channel: string, after: number, signal: AbortSignal): Promise<void>;
  close(): void;
}

/**
 * Opens the hub's store: a local KV file (`path`), or the platform's KV when
 * `path` is `undefined` (Deno Deploy).
 * @throws {Error} when Deno KV is unavailable (run with --unstable-kv).
 */
export async function openHubStore(path: string | undefined): Promise<HubStore> {
  if (typeof Deno.openKv !== "function") {
    throw new Error('Deno KV is not enabled: run with --unstable-kv (deno.json: "unstable": ["kv"])');
  }
  return hubStoreOn(await Deno.openKv(path));
}

/** The hub's store on an open KV. */
export function hubStoreOn(kv: Deno.Kv): HubStore {
  const queues = new Map<string, { pending: Pending[]; running: boolean }>();
  const heads = new Map<string, { seq: number; versionstamp: string | null }>();
  const listeners = new Map<string, Set<() => void>>();
  const channels = new Map<string, { record: ChannelRecord; until: number }>();

  function notify(channel: string): void {
    for (const wake of listeners.get(channel) ?? []) wake();
  }

  async function loadHead(channel: string) {
    const entry = await kv.get<number>(["hub", "head", channel]);
    const head = { seq: entry.value ?? 0, versionstamp: entry.versionstamp };
    heads.set(channel, head);
    return head;
  }

  /** Deletes the body chunks of an event that was not committed (nothing points at them). */
  async function dropChunks(channel: string, event: Omit<StoredEvent, "seq">): Promise<void> {
    if (event.blob === undefined) return;
    try {
      for (let i = 0; i < (event.chunks ?? 0); i += 8) {
        const op = kv.atomic();
        for (let j = i; j < Math.min(event.chunks ?? 0, i + 8); j++) {
          op.delete(["hub", "chunk", channel, event.blob, j]);
        }
        await op.commit();
      }
    } catch { /* a busy store: orphaned chunks stay until the channel is deleted */ }
  }

  async function commitLoop(channel: string, queue: { pending: Pending[]; running: boolean }) {
    while (queue.pending.length > 0) {
      let bytes = 0;
      let n = 0;
      while (
        n < queue.pending.length && n < COMMIT_EVENTS &&
        (n === 0 || bytes + queue.pending[n]!.bytes <= COMMIT_BYTES)
      ) {
        bytes += queue.pending[n]!.bytes;
        n++;
      }
      let batch = queue.pending.splice(0, n);
      for (let failures = 0;;) {
        try {
          const head = heads.get(channel) ?? await loadHead(channel);
          // The cap, checked in the commit: the usage as read now, and its versionstamp checked below.
          const used = await usageEntry(kv, channel);
          let total = used.bytes;
          const fits: Pending[] = [];
          const over: Pending[] = [];
          for (const p of batch) {
            if (total + p.cost > p.cap) over.push(p);
            else {
              fits.push(p);
              total += p.cost;
            }
          }
          for (const p of over) {
            void dropChunks(channel, p.event);
            p.reject(new ChannelFullError());
          }
          batch = fits;
          if (fits.length === 0) break;
          const last = head.seq + fits.length;
          const op = kv.atomic()
            .check({ key: ["hub", "head", channel], versionstamp: head.versionstamp })
            .check({ key: ["hub", "usage", channel], versionstamp: used.versionstamp });
          fits.forEach((p, i) =>
            op.set(["hub", "event", channel, head.seq + 1 + i], { seq: head.seq + 1 + i, ...p.event })
          );
          op.set(["hub", "head", channel], last);
          addTo(op, ["hub", "usage", channel], total - used.bytes);
          const result = await op.commit();
          if (!result.ok) {
            await loadHead(channel); // another writer (another process) committed or trimmed: look again
            continue;
          }
          heads.set(channel, { seq: last, versionstamp: result.versionstamp });
          fits.forEach((p, i) => p.resolve(head.seq + 1 + i));
          notify(channel);
          break;
        } catch (error) {
          // A busy database (another process on the same KV file) is worth a few more tries.
          heads.delete(channel);
          if (++failures < 5) {
            await new Promise((r) => setTimeout(r, 10 * failures));
            continue;
          }
          for (const p of batch) {
            void dropChunks(channel, p.event);
            p.reject(error);
          }
          break;
        }
      }
    }
  }

  return {
    kv,
    async createChannel(id, tokenHash) {
      const op = kv.atomic().check({ key: ["hub", "channel", id], versionstamp: null })
        .set(["hub", "channel", id], { tokenHash, createdAt: new Date().toISOString() });
      const result = await addTo(op, ["hub", "channels"], 1).commit();
      if (!result.ok) throw new Error("channel id already taken");
    },
    async channel(id) {
      // Known channels are kept a few seconds: a burst costs one read, not one per request.
      const cached = channels.get(id);
      if (cached !== undefined && cached.until > Date.now()) return cached.record;
      const record = (await kv.get<ChannelRecord>(["hub", "channel", id])).value;
      if (record !== null) channels.set(id, { record, until: Date.now() + CHANNEL_CACHE_MS });
      return record;
    },
    forget(id) {
      channels.delete(id);
    },
    async append(channel, input, options = {}) {
      if (headSize(input) > MAX_HEAD_BYTES) throw new HeadTooLargeError();
      const cost = storedBytes(input);
      const cap = options.maxChannelBytes ?? Infinity;
      const { body, ...rest } = input;
      let event: Omit<StoredEvent, "seq">;
      if (body.length <= INLINE_BODY) {
        // A view into a larger buffer (the HTTP server's read buffer) would be serialized whole inside the
        // event object, over KV's 64 KiB value limit: store a copy of just its bytes.
        event = { ...rest, body: body.byteLength === body.buffer.byteLength ? body : body.slice() };
      } else {
        // Chunks first, in commits of their own; the event that points at them comes after.
        const blob = crypto.randomUUID();
        const chunks = Math.ceil(body.length / CHUNK);
        for (let i = 0; i < chunks; i += 8) {
          const op = kv.atomic();
          for (let j = i; j < Math.min(chunks, i + 8); j++) {
            op.set(["hub", "chunk", channel, blob, j], body.subarray(j * CHUNK, (j + 1) * CHUNK));
          }
          const result = await op.commit();
          if (!result.ok) throw new Error("could not store a body chunk");
        }
        event = { ...rest, blob, chunks };
      }
      let queue = queues.get(channel);
      if (queue === undefined) queues.set(channel, queue = { pending: [], running: false });
      const q = queue;
      return new Promise<number>((resolve, reject) => {
        q.pending.push({
          event,
          bytes: headSize(input) + (event.body?.length ?? 0) + 200,
          cost,
          cap,
          resolve,
          reject,
        });
        if (!q.running) {
          q.running = true;
          commitLoop(channel, q).finally(() => (q.running = false));
        }
      });
    },
    async read(channel, after, options = {}) {
      const limit = options.limit ?? 1000;
      const maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
      const out: StoredEvent[] = [];
      let bytes = 0;
      const iter = kv.list<StoredEvent>({
        start: ["hub", "event", channel, after + 1],
        end: ["hub", "event", channel, Number.MAX_SAFE_INTEGER],
      }, { limit, batchSize: Math.min(limit, 500) });
      for await (const entry of iter) {
        if (out.length > 0 && bytes + entry.value.size > maxBytes) break;
        out.push(entry.value);
        bytes += entry.value.size;
      }
      return out;
    },
    async body(channel, event) {
      if (event.body !== undefined) return event.body;
      const out = new Uint8Array(event.size);
      let off = 0;
      for await (const entry of kv.list<Uint8Array>({ prefix: ["hub", "chunk", channel, event.blob!] })) {
        out.set(entry.value, off);
        off += entry.value.length;
      }
      if (off !== event.size) {
        throw new Error(`event ${event.seq}: body chunks missing (${off} of ${event.size} bytes)`);
      }
      return out;
    },
    async head(channel) {
      const known = heads.get(channel);
      if (known !== undefined) {
        return Math.max(
          known.seq,
          (await kv.get<number>(["hub", "head", channel], { consistency: "eventual" })).value ?? 0,
        );
      }
      return (await kv.get<number>(["hub", "head", channel])).value ?? 0;
    },
    async ack(channel, client, seq) {
      await kv.set(["hub", "cursor", channel, client], { seq, at: new Date().toISOString() });
    },
    async cursor(channel, client) {
      return (await kv.get<ClientCursor>(["hub", "cursor", channel, client])).value;
    },
    changed(channel, after, signal) {
      return new Promise<void>((resolve) => {
        let set = listeners.get(channel);
        if (set === undefined) listeners.set(channel, set = new Set());
        const s = set;
        const done = () => {
          s.delete(wake);
          signal.removeEventListener("abort", done);
          resolve();
        };
        const wake = () => done();
        s.add(wake);
        signal.addEventListener("abort", done, { once: true });
        if ((heads.get(channel)?.seq ?? 0) > after) done();
      });
    },
    close() {
      kv.close();
    },
  };
}
