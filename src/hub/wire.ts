/**
 * What travels between the hub and its client: events as JSON with the
 * body in base64 (bytes stay bytes), and the client's answers.
 * @module
 */

/** One event in a poll's answer. */
export interface WireEvent {
  seq: number;
  receivedAt: string;
  method: string;
  path: string;
  query: string;
  headers: [string, string][];
  remoteAddr: string;
  /** The body bytes, base64. */
  body: string;
  /** A sender is waiting for the client's answer (post it to `/answers/<seq>`). */
  answer: boolean;
}

/** A poll's answer. */
export interface WirePoll {
  /** The channel's last sequence number. */
  head: number;
  events: WireEvent[];
}

/** The client's answer to a waiting sender. */
export interface WireAnswer {
  status: number;
  headers: [string, string][];
  /** base64 */
  body: string;
}

/** A channel's state, for `doctor` and the banner. */
export interface WireStatus {
  head: number;
  acked: number;
  waiting: number;
  connected: boolean;
  lastReceivedAt: string | null;
}

/** Checks a poll answer's shape (the client never trusts what it receives). */
export function isWirePoll(value: unknown): value is WirePoll {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<WirePoll>;
  if (!Number.isSafeInteger(v.head) || !Array.isArray(v.events)) return false;
  return v.events.every((e) =>
    typeof e === "object" && e !== null && Number.isSafeInteger(e.seq) && typeof e.method === "string" &&
    typeof e.path === "string" && e.path.startsWith("/") && typeof e.query === "string" &&
    Array.isArray(e.headers) &&
    e.headers.every((h: unknown) =>
      Array.isArray(h) && typeof h[0] === "string" && typeof h[1] === "string"
    ) &&
    typeof e.body === "string" && typeof e.receivedAt === "string"
  );
}
