/**
 * The hub's storage on Deno KV. The key schema (room for several clients
 * per channel, retention and limits, issue 28):
 *
 * - `["hub","channel",ch]` → {@linkcode ChannelRecord} (the token's SHA-256, never the token)
 * - `["hub","head",ch]` → the last sequence number given out (a number)
 * - `["hub","event",ch,seq]` → {@linkcode StoredEvent}: the request, its body inline when small
 * - `["hub","chunk",ch,blob,i]` → 64,000-byte pieces of a larger body, written before its event
 * - `["hub","cursor",ch,client]` → {@linkcode ClientRecord}: a registered client, its ack and last contact
 * - `["hub","low",ch]` → {@linkcode LowMark}: every event at or below `seq` was dropped
 * - `["hub","usage",ch]` → `Deno.KvU64`: bytes the channel's events hold (summed in the append commit)
 * - `["hub","refused",ch]` → {@linkcode Refused}: requests answered 507 (storage full)
 * - `["hub","channels"]` → `Deno.KvU64`: how many channels exist
 *
 * This module is the only one that names a key or calls the KV (a test in
 * kv_store_test.ts scans src/ for others): the rest of the hub goes through
 * {@linkcode HubStore}'s methods.
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

/** A registered client (the cursor key, with when it registered). */
export interface ClientRecord extends ClientCursor {
  registeredAt?: string;
}

/** The channel's dropped prefix. */
export interface LowMark {
  seq: number;
  /** When the last dropped event was received. */
  at: string | null;
}

/** Requests the cap refused. */
export interface Refused {
  count: number;
  at: string;
}

/** What a trim dropped. */
export interface Trimmed {
  dropped: number;
  bytes: number;
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
  createChannel(id: string, tokenHash: Uint8Array): Promise<void>;
  /** The channel's record: kept a few seconds, unless `fresh` (read now: a token check on a held poll). */
  channel(id: string, options?: { fresh?: boolean }): Promise<ChannelRecord | null>;
  /** Replaces the channel's token hash (rotate, revoke); `false` when there is no such channel. */
  setTokenHash(id: string, tokenHash: Uint8Array): Promise<boolean>;
  /** Deletes a channel and everything it holds; `false` when there was none. */
  deleteChannel(id: string): Promise<boolean>;
  /** How many channels exist (counted since issue 28). */
  channelCount(): Promise<number>;
  /** Bytes the channel's events hold. */
  usage(channel: string): Promise<number>;
  /** The channel's dropped prefix. */
  lowMark(channel: string): Promise<LowMark>;
  /** Requests the cap refused, or `null`. */
  refused(channel: string): Promise<Refused | null>;
  /** Counts `count` requests the cap refused (default 1), the last at `now`. */
  noteRefused(channel: string, now: number, count?: number): Promise<void>;
  /** The registered clients of `channel`. */
  clients(channel: string): Promise<{ name: string; record: ClientRecord }[]>;
  /**
   * Registers `name` (starting at the dropped prefix: every stored event waits
   * for it), or notes its contact.
   * @returns `"full"` when the channel already has `maxClients` clients.
   */
  touchClient(
    channel: string,
    name: string,
    options: { now: number; maxClients: number },
  ): Promise<"known" | "new" | "full">;
  /**
   * Records a registered client's ack (never moving it back, never past the head): `unknown` when no client
   * has that name, `ahead` when `seq` is past the channel's head.
   */
  ackClient(channel: string, name: string, seq: number, now: number): Promise<AckResult>;
  /** Removes a client; `false` when there was none by that name. */
  removeClient(channel: string, name: string): Promise<boolean>;
  /**
   * Drops the events every pinning client acknowledged and those older than
   * the retention, from the start of the channel, in commits that check the
   * low mark (two trims never drop the same event twice).
   */
  trim(channel: string, options: { now: number; retentionMs: number; max?: number }): Promise<Trimmed>;
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

const WRAP = 1n << 64n;

function u64(value: Deno.KvU64 | null): number {
  return value === null ? 0 : Number(value.value);
}

/** Adds `n` (negative: subtracts) to a KvU64 counter in `op`. */
function addTo(op: Deno.AtomicOperation, key: Deno.KvKey, n: number): Deno.AtomicOperation {
  return op.sum(key, n >= 0 ? BigInt(n) : (WRAP + BigInt(n)) % WRAP); // wraps: adding 2^64 - n subtracts n
}

/** What one event costs the channel's storage: its body and head. */
export function storedBytes(e: Pick<StoredEvent, "size" | "path" | "query" | "headers">): number {
  let n = e.size + e.path.length + e.query.length;
  for (const [k, v] of e.headers) n += k.length + v.length + 8;
  return n;
}

/** The channel's usage entry (bytes and versionstamp), for an atomic check of the storage cap. */
async function usageEntry(
  kv: Deno.Kv,
  channel: string,
): Promise<{ bytes: number; versionstamp: string | null }> {
  const entry = await kv.get<Deno.KvU64>(["hub", "usage", channel]);
  const n = u64(entry.value);
  return { bytes: n >= 2 ** 63 ? 0 : n, versionstamp: entry.versionstamp };
}

/** Bytes the channel's events hold, on an open KV (tests read it beside a store). */
export async function usage(kv: Deno.Kv, channel: string): Promise<number> {
  return (await usageEntry(kv, channel)).bytes; // never below zero, even after a store written before the count
}

async function lowMark(kv: Deno.Kv, channel: string): Promise<LowMark> {
  return (await kv.get<LowMark>(["hub", "low", channel])).value ?? { seq: 0, at: null };
}

async function listClients(kv: Deno.Kv, channel: string): Promise<{ name: string; record: ClientRecord }[]> {
  const out: { name: string; record: ClientRecord }[] = [];
  for await (const e of kv.list<ClientRecord>({ prefix: ["hub", "cursor", channel] })) {
    out.push({ name: String(e.key[3]), record: e.value });
  }
  return out;
}

async function touchClient(
  kv: Deno.Kv,
  channel: string,
  name: string,
  options: { now: number; maxClients: number },
): Promise<"known" | "new" | "full"> {
  const key = ["hub", "cursor", channel, name];
  const entry = await kv.get<ClientRecord>(key);
  const at = new Date(options.now).toISOString();
  if (entry.value !== null) {
    // Contact is noted at most every 10 s: a poll loop costs no write per poll.
    if (options.now - Date.parse(entry.value.at) > 10_000) {
      await kv.atomic().check(entry).set(key, { ...entry.value, at }).commit();
    }
    return "known";
  }
  if ((await listClients(kv, channel)).length >= options.maxClients) return "full";
  const low = await lowMark(kv, channel);
  await kv.atomic().check(entry).set(key, { seq: low.seq, at, registeredAt: at } satisfies ClientRecord)
    .commit();
  return "new";
}

/** What {@linkcode HubStore.ackClient} did: the ack recorded, or why not. */
export type AckResult =
  | { kind: "ok"; seq: number }
  | { kind: "unknown" }
  | { kind: "ahead"; head: number };

async function ackClient(
  kv: Deno.Kv,
  channel: string,
  name: string,
  seq: number,
  now: number,
): Promise<AckResult> {
  const key = ["hub", "cursor", channel, name];
  for (let i = 0; i < 5; i++) {
    const [entry, head] = await kv.getMany<[ClientRecord, number]>([key, ["hub", "head", channel]]);
    // Only a registered client acks (an ack registers no one), and never past the channel's head: a later
    // event at or under that number would count as taken. Never backwards either.
    if (entry.value === null) return { kind: "unknown" };
    if (seq > (head.value ?? 0)) return { kind: "ahead", head: head.value ?? 0 };
    const record: ClientRecord = {
      ...entry.value,
      seq: Math.max(seq, entry.value.seq),
      at: new Date(now).toISOString(),
    };
    if ((await kv.atomic().check(entry).set(key, record).commit()).ok) return { kind: "ok", seq: record.seq };
  }
  throw new Error("the client's cursor kept changing under this ack");
}

async function removeClient(kv: Deno.Kv, channel: string, name: string): Promise<boolean> {
  const key = ["hub", "cursor", channel, name];
  const entry = await kv.get(key);
  if (entry.value === null) return false;
  await kv.delete(key);
  return true;
}

async function trimChannel(
  kv: Deno.Kv,
  read: HubStore["read"],
  channel: string,
  options: { now: number; retentionMs: number; max?: number },
): Promise<Trimmed> {
  const since = options.now - options.retentionMs;
  const pinning = (await listClients(kv, channel)).filter(({ record }) => Date.parse(record.at) >= since);
  const lowEntry = await kv.get<LowMark>(["hub", "low", channel]);
  let low = lowEntry.value ?? { seq: 0, at: null };
  let check: Deno.AtomicCheck = lowEntry;
  const ackedAll = pinning.length === 0 ? low.seq : Math.min(...pinning.map(({ record }) => record.seq));
  const out: Trimmed = { dropped: 0, bytes: 0 };
  const max = options.max ?? 5000;
  while (out.dropped < max) {
    const events = await read(channel, low.seq, { limit: 100, maxBytes: Number.MAX_SAFE_INTEGER });
    const drop: StoredEvent[] = [];
    for (const e of events) {
      if (e.seq !== low.seq + 1 + drop.length) break; // a hole: an append still in flight
      if (e.seq > ackedAll && Date.parse(e.receivedAt) >= since) break;
      drop.push(e);
    }
    if (drop.length === 0) break;
    let op = kv.atomic().check(check);
    let bytes = 0;
    for (const e of drop) {
      op = op.delete(["hub", "event", channel, e.seq]);
      if (e.blob !== undefined) {
        for (let i = 0; i < (e.chunks ?? 0); i++) op = op.delete(["hub", "chunk", channel, e.blob, i]);
      }
      bytes += storedBytes(e);
    }
    const last = drop.at(-1)!;
    const mark: LowMark = { seq: last.seq, at: last.receivedAt };
    op = addTo(op.set(["hub", "low", channel], mark), ["hub", "usage", channel], -bytes);
    const result = await op.commit();
    if (!result.ok) break; // another trim runs: it drops them
    check = { key: ["hub", "low", channel], versionstamp: result.versionstamp };
    low = mark;
    out.dropped += drop.length;
    out.bytes += bytes;
    if (drop.length < events.length) break;
  }
  return out;
}

async function deleteChannel(kv: Deno.Kv, channel: string): Promise<boolean> {
  const entry = await kv.get(["hub", "channel", channel]);
  if (entry.value === null) return false;
  // The channel record goes first: from then on nothing is received or read there.
  const op = kv.atomic().check(entry).delete(["hub", "channel", channel]);
  const result = await addTo(op, ["hub", "channels"], -1).commit();
  if (!result.ok) return false;
  for (const part of ["event", "chunk", "cursor", "head", "low", "usage", "refused"]) {
    const keys: Deno.KvKey[] = [];
    for await (const e of kv.list({ prefix: ["hub", part, channel] })) keys.push(e.key);
    const single = await kv.get(["hub", part, channel]);
    if (single.value !== null) keys.push(single.key);
    for (let i = 0; i < keys.length; i += 500) {
      let op = kv.atomic();
      for (const key of keys.slice(i, i + 500)) op = op.delete(key);
      await op.commit();
    }
  }
  return true;
}

interface LogState {
  kv: Deno.Kv;
  /** The last sequence number known per channel, and the head key's versionstamp. */
  heads: Map<string, { seq: number; versionstamp: string | null }>;
  /** Held polls waiting for a channel's next event (in this process). */
  listeners: Map<string, Set<() => void>>;
}

function notify(log: LogState, channel: string): void {
  for (const wake of log.listeners.get(channel) ?? []) wake();
}

async function loadHead(log: LogState, channel: string) {
  const entry = await log.kv.get<number>(["hub", "head", channel]);
  const head = { seq: entry.value ?? 0, versionstamp: entry.versionstamp };
  log.heads.set(channel, head);
  return head;
}

/** Stores a large body's chunks, in commits of their own (before the event that points at them). */
async function storeChunks(
  kv: Deno.Kv,
  channel: string,
  body: Uint8Array,
): Promise<{ blob: string; chunks: number }> {
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
  return { blob, chunks };
}

/** Deletes the body chunks of an event that was not committed (nothing points at them). */
async function dropChunks(kv: Deno.Kv, channel: string, event: Omit<StoredEvent, "seq">): Promise<void> {
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

/** Commits a channel's pending events, in batches (group commit), each checked against the head and the cap. */
async function commitLoop(log: LogState, channel: string, queue: { pending: Pending[]; running: boolean }) {
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
        const head = log.heads.get(channel) ?? await loadHead(log, channel);
        // The cap, checked in the commit: the usage as read now, and its versionstamp checked below.
        const used = await usageEntry(log.kv, channel);
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
          void dropChunks(log.kv, channel, p.event);
          p.reject(new ChannelFullError());
        }
        batch = fits;
        if (fits.length === 0) break;
        const last = head.seq + fits.length;
        const op = log.kv.atomic()
          .check({ key: ["hub", "head", channel], versionstamp: head.versionstamp })
          .check({ key: ["hub", "usage", channel], versionstamp: used.versionstamp });
        fits.forEach((p, i) =>
          op.set(["hub", "event", channel, head.seq + 1 + i], { seq: head.seq + 1 + i, ...p.event })
        );
        op.set(["hub", "head", channel], last);
        addTo(op, ["hub", "usage", channel], total - used.bytes);
        const result = await op.commit();
        if (!result.ok) {
          await loadHead(log, channel); // another writer (another process) committed or trimmed: look again
          continue;
        }
        log.heads.set(channel, { seq: last, versionstamp: result.versionstamp });
        fits.forEach((p, i) => p.resolve(head.seq + 1 + i));
        notify(log, channel);
        break;
      } catch (error) {
        // A busy database (another process on the same KV file) is worth a few more tries.
        log.heads.delete(channel);
        if (++failures < 5) {
          await new Promise((r) => setTimeout(r, 10 * failures));
          continue;
        }
        for (const p of batch) {
          void dropChunks(log.kv, channel, p.event);
          p.reject(error);
        }
        break;
      }
    }
  }
}

/**
 * `commit()` again while SQLite says the database is locked (another process on the same KV file holds its
 * write lock for a moment, as a second hub does while it opens the file): a few tries, 10, 20, 30... ms apart.
 */
async function whenNotBusy<T>(commit: () => Promise<T>): Promise<T> {
  for (let tries = 1;; tries++) {
    try {
      return await commit();
    } catch (error) {
      if (tries >= 5 || !(error instanceof Error) || !/database is locked/i.test(error.message)) throw error;
      await new Promise((r) => setTimeout(r, 10 * tries));
    }
  }
}

/** The channel's events: append (group commit under the cap), read, bodies, head, cursors, change waits. */
function eventLog(
  kv: Deno.Kv,
): Pick<HubStore, "append" | "read" | "body" | "head" | "cursor" | "changed"> {
  const log: LogState = { kv, heads: new Map(), listeners: new Map() };
  const queues = new Map<string, { pending: Pending[]; running: boolean }>();
  return {
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
        event = { ...rest, ...await storeChunks(kv, channel, body) };
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
          commitLoop(log, channel, q).finally(() => (q.running = false));
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
      const known = log.heads.get(channel);
      if (known !== undefined) {
        return Math.max(
          known.seq,
          (await kv.get<number>(["hub", "head", channel], { consistency: "eventual" })).value ?? 0,
        );
      }
      return (await kv.get<number>(["hub", "head", channel])).value ?? 0;
    },
    async cursor(channel, client) {
      return (await kv.get<ClientCursor>(["hub", "cursor", channel, client])).value;
    },
    changed(channel, after, signal) {
      return new Promise<void>((resolve) => {
        let set = log.listeners.get(channel);
        if (set === undefined) log.listeners.set(channel, set = new Set());
        const s = set;
        const done = () => {
          s.delete(wake);
          signal.removeEventListener("abort", done);
          resolve();
        };
        const wake = () => done();
        s.add(wake);
        signal.addEventListener("abort", done, { once: true });
        if ((log.heads.get(channel)?.seq ?? 0) > after) done();
      });
    },
  };
}

/** Channels: create, read (cached a few seconds), change the token, delete, count. */
function channelsOn(
  kv: Deno.Kv,
): Pick<
  HubStore,
  "createChannel" | "channel" | "forget" | "setTokenHash" | "deleteChannel" | "channelCount"
> {
  const channels = new Map<string, { record: ChannelRecord; until: number }>();
  return {
    async createChannel(id, tokenHash) {
      const record = { tokenHash, createdAt: new Date().toISOString() };
      const result = await whenNotBusy(() => {
        const op = kv.atomic().check({ key: ["hub", "channel", id], versionstamp: null })
          .set(["hub", "channel", id], record);
        return addTo(op, ["hub", "channels"], 1).commit();
      });
      if (!result.ok) throw new Error("channel id already taken");
    },
    async channel(id, options = {}) {
      // Known channels are kept a few seconds: a burst costs one read, not one per request.
      const cached = channels.get(id);
      if (!options.fresh && cached !== undefined && cached.until > Date.now()) return cached.record;
      const record = (await kv.get<ChannelRecord>(["hub", "channel", id])).value;
      if (record !== null) channels.set(id, { record, until: Date.now() + CHANNEL_CACHE_MS });
      return record;
    },
    forget(id) {
      channels.delete(id);
    },
    async setTokenHash(id, tokenHash) {
      const entry = await kv.get<ChannelRecord>(["hub", "channel", id]);
      if (entry.value === null) return false;
      await kv.atomic().check(entry).set(["hub", "channel", id], { ...entry.value, tokenHash }).commit();
      channels.delete(id);
      return true;
    },
    async deleteChannel(id) {
      channels.delete(id);
      return await deleteChannel(kv, id);
    },
    async channelCount() {
      return u64((await kv.get<Deno.KvU64>(["hub", "channels"])).value);
    },
  };
}

/** A channel's clients, dropped prefix, usage and refusals, and retention's trim. */
function teamOn(
  kv: Deno.Kv,
  read: HubStore["read"],
): Pick<
  HubStore,
  | "usage"
  | "lowMark"
  | "refused"
  | "noteRefused"
  | "clients"
  | "touchClient"
  | "ackClient"
  | "removeClient"
  | "trim"
> {
  return {
    usage: (channel) => usage(kv, channel),
    lowMark: (channel) => lowMark(kv, channel),
    async refused(channel) {
      return (await kv.get<Refused>(["hub", "refused", channel])).value;
    },
    async noteRefused(channel, now, count = 1) {
      const key = ["hub", "refused", channel];
      // Checked by versionstamp: two writers (processes, isolates) never count over each other.
      for (;;) {
        const before = await kv.get<Refused>(key);
        const next = { count: (before.value?.count ?? 0) + count, at: new Date(now).toISOString() };
        const op = kv.atomic().check(before).set(key, next satisfies Refused);
        if ((await whenNotBusy(() => op.commit())).ok) return;
      }
    },
    clients: (channel) => listClients(kv, channel),
    touchClient: (channel, name, options) => touchClient(kv, channel, name, options),
    ackClient: (channel, name, seq, now) => ackClient(kv, channel, name, seq, now),
    removeClient: (channel, name) => removeClient(kv, channel, name),
    trim: (channel, options) => trimChannel(kv, read, channel, options),
  };
}

/** The hub's store on an open KV. */
export function hubStoreOn(kv: Deno.Kv): HubStore {
  const log = eventLog(kv);
  return {
    ...log,
    ...channelsOn(kv),
    ...teamOn(kv, log.read),
    close() {
      kv.close();
    },
  };
}
