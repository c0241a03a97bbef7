/**
 * Several clients per channel, retention and the storage cap, on the hub's
 * KV (issue 28). Keys beside src/hub/kv_store.ts's:
 *
 * - `["hub","cursor",ch,name]` → {@linkcode ClientRecord}: a registered client, its ack and last contact
 * - `["hub","low",ch]` → {@linkcode LowMark}: every event at or below `seq` was dropped
 * - `["hub","usage",ch]` → `Deno.KvU64`: bytes the channel's events hold (summed in the append commit)
 * - `["hub","refused",ch]` → {@linkcode Refused}: requests answered 507 (storage full)
 * - `["hub","channels"]` → `Deno.KvU64`: how many channels exist
 *
 * The stored events are always a suffix `low+1 … head` of the channel's
 * sequence: an event is dropped only once every event before it is, and
 * only when every client that has been seen within the retention acked it,
 * or it is older than the retention. A client away longer than the
 * retention pins nothing.
 * @module
 */
import type { ClientCursor, HubStore, StoredEvent } from "./kv_store.ts";

/** A registered client (the cursor key, with when it registered). */
export interface ClientRecord extends ClientCursor {
  registeredAt?: string;
}

/** A client as listed. */
export interface ClientInfo {
  name: string;
  /** Last acknowledged sequence number. */
  acked: number;
  /** Last contact (poll or ack). */
  lastSeen: string;
  /** Events at the hub after its ack. */
  waiting: number;
  /** Whether it still keeps events from being dropped (seen within the retention). */
  pinning: boolean;
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

/** A client's name: letters, digits, `.`, `_`, `@`, `-`, at most 64. */
export const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

const WRAP = 1n << 64n;

function u64(value: Deno.KvU64 | null): number {
  return value === null ? 0 : Number(value.value);
}

/** Adds `n` (negative: subtracts) to a KvU64 counter in `op`. */
export function addTo(op: Deno.AtomicOperation, key: Deno.KvKey, n: number): Deno.AtomicOperation {
  return op.sum(key, n >= 0 ? BigInt(n) : (WRAP + BigInt(n)) % WRAP); // wraps: adding 2^64 - n subtracts n
}

/** The channel's dropped prefix. */
export async function lowMark(kv: Deno.Kv, channel: string): Promise<LowMark> {
  return (await kv.get<LowMark>(["hub", "low", channel])).value ?? { seq: 0, at: null };
}

/** Bytes the channel's events hold. */
export async function usage(kv: Deno.Kv, channel: string): Promise<number> {
  const n = u64((await kv.get<Deno.KvU64>(["hub", "usage", channel])).value);
  return n >= 2 ** 63 ? 0 : n; // never below zero, even after a store written before the count existed
}

/** The channel's usage entry (bytes and versionstamp), for an atomic check of the storage cap. */
export async function usageEntry(
  kv: Deno.Kv,
  channel: string,
): Promise<{ bytes: number; versionstamp: string | null }> {
  const entry = await kv.get<Deno.KvU64>(["hub", "usage", channel]);
  const n = u64(entry.value);
  return { bytes: n >= 2 ** 63 ? 0 : n, versionstamp: entry.versionstamp };
}

/** How many channels exist (counted since issue 28). */
export async function channelCount(kv: Deno.Kv): Promise<number> {
  return u64((await kv.get<Deno.KvU64>(["hub", "channels"])).value);
}

/** The registered clients of `channel`. */
export async function listClients(
  kv: Deno.Kv,
  channel: string,
): Promise<{ name: string; record: ClientRecord }[]> {
  const out: { name: string; record: ClientRecord }[] = [];
  for await (const e of kv.list<ClientRecord>({ prefix: ["hub", "cursor", channel] })) {
    out.push({ name: String(e.key[3]), record: e.value });
  }
  return out;
}

/**
 * Registers `name` (starting at the dropped prefix: every stored event waits
 * for it), or notes its contact.
 * @returns `"full"` when the channel already has `maxClients` clients.
 */
export async function touchClient(
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

/** Records a client's ack (never moving it back). */
export async function ackClient(
  kv: Deno.Kv,
  channel: string,
  name: string,
  seq: number,
  now: number,
): Promise<void> {
  const key = ["hub", "cursor", channel, name];
  for (let i = 0; i < 5; i++) {
    const entry = await kv.get<ClientRecord>(key);
    const record: ClientRecord = {
      ...entry.value,
      seq: Math.max(seq, entry.value?.seq ?? 0),
      at: new Date(now).toISOString(),
    };
    if ((await kv.atomic().check(entry).set(key, record).commit()).ok) return;
  }
}

/** Removes a client; `false` when there was none by that name. */
export async function removeClient(kv: Deno.Kv, channel: string, name: string): Promise<boolean> {
  const key = ["hub", "cursor", channel, name];
  const entry = await kv.get(key);
  if (entry.value === null) return false;
  await kv.delete(key);
  return true;
}

/** The clients as listed by `hooktap hub clients`. */
export async function clientInfos(
  kv: Deno.Kv,
  channel: string,
  head: number,
  options: { now: number; retentionMs: number },
): Promise<ClientInfo[]> {
  return (await listClients(kv, channel)).map(({ name, record }) => ({
    name,
    acked: record.seq,
    lastSeen: record.at,
    waiting: Math.max(0, head - record.seq),
    pinning: options.now - Date.parse(record.at) <= options.retentionMs,
  }));
}

/** What a trim dropped. */
export interface Trimmed {
  dropped: number;
  bytes: number;
}

/**
 * Drops the events every pinning client acknowledged and those older than
 * the retention, from the start of the channel, in commits that check the
 * low mark (two trims never drop the same event twice).
 */
export async function trimChannel(
  store: HubStore,
  channel: string,
  options: { now: number; retentionMs: number; max?: number },
): Promise<Trimmed> {
  const { kv } = store;
  const since = options.now - options.retentionMs;
  const pinning = (await listClients(kv, channel)).filter(({ record }) => Date.parse(record.at) >= since);
  const lowEntry = await kv.get<LowMark>(["hub", "low", channel]);
  let low = lowEntry.value ?? { seq: 0, at: null };
  let check: Deno.AtomicCheck = lowEntry;
  const ackedAll = pinning.length === 0 ? low.seq : Math.min(...pinning.map(({ record }) => record.seq));
  const out: Trimmed = { dropped: 0, bytes: 0 };
  const max = options.max ?? 5000;
  while (out.dropped < max) {
    const events = await store.read(channel, low.seq, { limit: 100, maxBytes: Number.MAX_SAFE_INTEGER });
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

/** Counts a request the cap refused. */
export async function noteRefused(kv: Deno.Kv, channel: string, now: number): Promise<void> {
  const key = ["hub", "refused", channel];
  const before = (await kv.get<Refused>(key)).value;
  await kv.set(key, { count: (before?.count ?? 0) + 1, at: new Date(now).toISOString() } satisfies Refused);
}

/** Requests the cap refused, or `null`. */
export async function refused(kv: Deno.Kv, channel: string): Promise<Refused | null> {
  return (await kv.get<Refused>(["hub", "refused", channel])).value;
}

/** Deletes a channel and everything it holds; `false` when there was none. */
export async function deleteChannel(kv: Deno.Kv, channel: string): Promise<boolean> {
  const entry = await kv.get(["hub", "channel", channel]);
  if (entry.value === null) return false;
  // The channel record goes first: from then on nothing is received or read there.
  const result = await addTo(kv.atomic().check(entry).delete(["hub", "channel", channel]), [
    "hub",
    "channels",
  ], -1)
    .commit();
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

/** What one event costs the channel's storage: its body and head. */
export function storedBytes(e: Pick<StoredEvent, "size" | "path" | "query" | "headers">): number {
  let n = e.size + e.path.length + e.query.length;
  for (const [k, v] of e.headers) n += k.length + v.length + 8;
  return n;
}
