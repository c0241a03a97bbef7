/**
 * Load for the fault suite: a deterministic mix of webhook bodies and a
 * runner that sends them over N keep-alive raw connections to a real
 * `hooktap dev`, remembering what every 200 acknowledged.
 * @module
 */
import { decodeBody } from "../../src/event/record.ts";
import { sha256 } from "../_helpers.ts";
import { HttpConn } from "./_http.ts";
import { seededRandom } from "../../src/trigger/plan.ts";

/** The config the load tests run with: the starter endpoint. */
export const LOAD_CONFIG = `export default {
  port: 8787,
  endpoints: [{ name: "default", path: "/webhook", method: "POST" }],
};
`;

/** One body of the mix. */
export interface Payload {
  kind: "json" | "form" | "binary" | "empty" | "large";
  contentType: string | null;
  bytes: Uint8Array;
}

/** What was sent for one acknowledged event. */
export interface Sent {
  index: number;
  kind: Payload["kind"];
  size: number;
  sha: string;
}

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

/** A small seeded PRNG (mulberry32), so every run sends the same bytes. */
export const prng = seededRandom;

function randomBytes(rand: () => number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 4) {
    const v = (rand() * 4294967296) >>> 0;
    out[i] = v & 0xff;
    if (i + 1 < n) out[i + 1] = (v >>> 8) & 0xff;
    if (i + 2 < n) out[i + 2] = (v >>> 16) & 0xff;
    if (i + 3 < n) out[i + 3] = v >>> 24;
  }
  if (n > 0) out[0] = 0xff; // never valid UTF-8: stored as base64
  return out;
}

const WORDS = [
  "push",
  "ref",
  "refs/heads/main",
  "käse",
  "日本語",
  "emoji 🎉",
  'quote " and \\',
  "tab\tline\n",
];

function jsonBody(rand: () => number, target: number): Uint8Array {
  const items: unknown[] = [];
  let approx = 0;
  while (approx < target) {
    const word = WORDS[Math.floor(rand() * WORDS.length)]!;
    items.push({ n: Math.floor(rand() * 1e9), word, ok: rand() < 0.5 });
    approx += 40 + word.length;
  }
  return encoder.encode(JSON.stringify({ event: "load", items }));
}

function formBody(rand: () => number, target: number): Uint8Array {
  const parts: string[] = [];
  let approx = 0;
  while (approx < target) {
    const word = WORDS[Math.floor(rand() * WORDS.length)]!;
    const part = `k${parts.length}=${encodeURIComponent(word)}&n=${Math.floor(rand() * 1e6)}`;
    parts.push(part);
    approx += part.length + 1;
  }
  return encoder.encode(parts.join("&"));
}

/**
 * Body number `i` of the mix. Chosen so 10,000 of them stay near 50 MB:
 * every 1,000th is 1 MiB of binary (10 in 10,000); 1% are 16–256 KiB
 * (JSON or binary); 15% are empty; 40% JSON of 20 B–4 KiB; 20% form
 * bodies of 10 B–1 KiB; the rest binary (not UTF-8) of 1 B–8 KiB.
 */
export function payload(i: number, seed = 1): Payload {
  const rand = prng(seed * 1_000_003 + i);
  if (i % 1000 === 999) {
    return { kind: "large", contentType: "application/octet-stream", bytes: randomBytes(rand, MiB) };
  }
  const r = rand();
  if (r < 0.01) {
    const size = 16 * 1024 + Math.floor(rand() * 240 * 1024);
    return rand() < 0.5
      ? { kind: "large", contentType: "application/json", bytes: jsonBody(rand, size) }
      : { kind: "large", contentType: "application/octet-stream", bytes: randomBytes(rand, size) };
  }
  if (r < 0.16) return { kind: "empty", contentType: null, bytes: new Uint8Array(0) };
  if (r < 0.56) {
    return { kind: "json", contentType: "application/json", bytes: jsonBody(rand, 20 + rand() * 4096) };
  }
  if (r < 0.76) {
    return {
      kind: "form",
      contentType: "application/x-www-form-urlencoded",
      bytes: formBody(rand, 10 + rand() * 1024),
    };
  }
  return {
    kind: "binary",
    contentType: "application/octet-stream",
    bytes: randomBytes(rand, 1 + Math.floor(rand() * 8192)),
  };
}

/** Options of {@linkcode runLoad}. */
export interface LoadOptions {
  port: number;
  /** Concurrent keep-alive connections. */
  connections: number;
  /** Requests to send in all (default: until `stop` says so). */
  total?: number;
  /** Checked before each request; true ends the load. */
  stop?: () => boolean;
  /** Body of request `i`. @default payload */
  body?: (i: number) => Payload;
  /** Path to post to. @default "/webhook" */
  path?: string;
  /** Each connection starts at most one request per this many ms (steady load). @default 0 */
  intervalMs?: number;
  /** Called after each acknowledged request with the number acknowledged so far. */
  onAck?: (acked: number) => void;
  /** Called with the status of every response. */
  onStatus?: (status: number) => void;
  /** On a failed request or connection, open a new one and go on (for runs that outlive a server). @default false */
  reconnect?: boolean;
}

/** What a load run saw. */
export interface LoadResult {
  /** Every acknowledged (200) event by id. */
  acked: Map<string, Sent>;
  /** Responses by status code. */
  statuses: Map<number, number>;
  /** Requests that failed at the client (connection refused, reset, closed). */
  clientErrors: number;
  /** Requests started. */
  sent: number;
  /** Bytes of body sent. */
  bytes: number;
  /** Bodies of non-200 responses, a few. */
  otherBodies: string[];
}

/** Sends the load; resolves when it is done (or every connection failed). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const make = options.body ?? ((i: number) => payload(i));
  const path = options.path ?? "/webhook";
  const result: LoadResult = {
    acked: new Map(),
    statuses: new Map(),
    clientErrors: 0,
    sent: 0,
    bytes: 0,
    otherBodies: [],
  };
  let next = 0;
  const done = () => (options.total !== undefined && next >= options.total) || (options.stop?.() ?? false);

  const worker = async () => {
    let conn: HttpConn | undefined;
    let slot = performance.now();
    while (!done()) {
      if (options.intervalMs) {
        const wait = slot - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        slot = Math.max(slot + options.intervalMs, performance.now() - options.intervalMs);
        if (done()) break;
      }
      try {
        conn ??= await HttpConn.open(options.port);
      } catch {
        result.clientErrors++;
        if (!options.reconnect) return;
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const i = next++;
      const p = make(i);
      result.sent++;
      result.bytes += p.bytes.length;
      const headers: [string, string][] = [["x-load-index", String(i)]];
      if (p.contentType !== null) headers.push(["content-type", p.contentType]);
      const c = conn;
      try {
        const res = await c.request({ path, headers, body: p.bytes });
        result.statuses.set(res.status, (result.statuses.get(res.status) ?? 0) + 1);
        options.onStatus?.(res.status);
        if (res.status === 200) {
          const id = res.headers.get("x-hooktap-event-id")!;
          result.acked.set(id, { index: i, kind: p.kind, size: p.bytes.length, sha: await sha256(p.bytes) });
          options.onAck?.(result.acked.size);
        } else if (result.otherBodies.length < 5) result.otherBodies.push(`${res.status} ${res.text()}`);
        if (res.headers.get("connection") === "close") {
          c.close();
          conn = undefined;
        }
      } catch {
        result.clientErrors++;
        c.close();
        conn = undefined;
        if (!options.reconnect) return;
      }
    }
    conn?.close();
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  return result;
}

/** The file's lines split at "\n"; `torn` is the text after the last newline ("" when it ends cleanly). */
export function splitLog(text: string): { lines: string[]; torn: string } {
  const parts = text.split("\n");
  const torn = parts.pop()!;
  return { lines: parts, torn };
}

/** sha256 of a stored event's body bytes. */
export function storedSha(event: Record<string, unknown>): Promise<string> {
  return sha256(decodeBody(event as { body: string; bodyEncoding: "utf8" | "base64" }));
}

/** Resident set size of a process in KiB, from /proc/PID/status (VmRSS). */
export async function rssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const m = status.match(/^VmRSS:\s+(\d+)\s+kB/m);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}
