/**
 * `hooktap dev --hub`: the client. Long-polls the hub for the events after
 * its cursor, hands each to dev's own handler as if it had arrived directly
 * (routing, unmatched, verdicts, challenges, forwarding, inspector), posts
 * the handler's answer back when a sender is waiting, then saves its cursor
 * and acknowledges.
 *
 * Why long-poll HTTP: every request carries the cursor (`after=`), so
 * resuming after sleep, SIGKILL or a network loss is the same request as
 * any other; a backlog comes in large batches (catch-up); it needs nothing
 * from a proxy or platform beyond plain HTTP requests.
 * @module
 */
import { HooktapError } from "../errors.ts";
import type { Handler } from "../receiver/handler.ts";
import type { IncomingRequest } from "../receiver/request.ts";
import type { StorePaths } from "../store/paths.ts";
import { type HubState, readHubState, storedHubSeqs, writeHubState } from "./cursor_file.ts";
import type { HubOrder } from "./order.ts";
import { type WireAnswer, type WireEvent, type WirePoll, wirePollProblem, type WireStatus } from "./wire.ts";

/** Options of {@linkcode connectHub}. */
export interface HubClientOptions {
  /** The channel URL: `https://hub.example.com/c/<id>`. */
  url: string;
  token: string;
  /** dev's handler (the session's). */
  handle: Handler;
  /** The order keeper whose `wrap` wraps the session's sink. */
  order: HubOrder;
  paths: StorePaths;
  /** Called whenever the state changes (connected, waiting, last received). */
  onState?: (state: HubState) => void;
  /**
   * This client's name at the hub: each name gets every event (its own cursor).
   * @default "default"
   */
  clientName?: string;
  /** Called when the hub dropped events this client never received (it was away longer than the retention). */
  onGap?: (gap: { missed: number; since: string | null }) => void;
  /** Called when the hub's storage for the channel refused requests (507) since the last report. */
  onRefused?: (refused: { count: number; at: string }) => void;
  /**
   * Longest poll.
   * @default 25000
   */
  pollWaitMs?: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** A connected client. */
export interface HubClient {
  readonly state: HubState;
  /** Stops after the batch in hand is stored and acknowledged. */
  stop(): Promise<void>;
}

/** The hub refused the client (wrong token, unknown channel) or the URL is not a channel. */
export class HubError extends HooktapError {
  constructor(message: string) {
    super(message, { exitCode: 1 });
    this.name = "HubError";
  }
}

/** Splits a channel URL into the hub's base and the channel id. */
export function parseChannelUrl(url: string): { base: string; channel: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HubError(`--hub must be a channel URL like https://hub.example.com/c/<id>, got "${url}".`);
  }
  const match = /^(.*)\/c\/([A-Za-z0-9_-]{22})\/?$/.exec(parsed.pathname);
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || match === null) {
    throw new HubError(
      `--hub must be a channel URL like https://hub.example.com/c/<id> (from \`hooktap hub channel create\`), got "${url}".`,
    );
  }
  return { base: `${parsed.origin}${match[1]}`, channel: match[2]! };
}

function requestOf(e: WireEvent, bytes: Uint8Array): IncomingRequest {
  // The handler reads the raw header list and, with a Content-Length, arrayBuffer(): the Headers
  // object and the stream are built only if something asks for them (catch-up handles thousands).
  let headers: Headers | undefined;
  let body: ReadableStream<Uint8Array> | null | undefined;
  return {
    method: e.method,
    url: `http://hub.invalid${e.path}${e.query === "" ? "" : `?${e.query}`}`,
    get headers() {
      if (headers === undefined) {
        headers = new Headers();
        for (const [k, v] of e.headers) {
          try {
            headers.append(k, v);
          } catch { /* the raw list keeps it */ }
        }
      }
      return headers;
    },
    rawHeaders: e.headers,
    get body() {
      if (body === undefined) body = bytes.length === 0 ? null : ReadableStream.from([bytes]);
      return body;
    },
    arrayBuffer: () => Promise.resolve(bytes.slice().buffer),
  };
}

/**
 * Checks the token, reads the local cursor and starts the poll loop.
 * @throws {HubError} when the hub refuses the token or cannot be reached.
 */
export async function connectHub(options: HubClientOptions): Promise<HubClient> {
  const { base, channel } = parseChannelUrl(options.url);
  const doFetch = options.fetch ?? globalThis.fetch;
  const api = `${base}/api/channels/${channel}`;
  const who = `client=${encodeURIComponent(options.clientName ?? "default")}`;
  const auth = { authorization: `Bearer ${options.token}` };
  let status: WireStatus;
  try {
    const response = await doFetch(`${api}?${who}`, { headers: auth });
    if (response.status === 401) {
      await response.body?.cancel();
      throw new HubError(
        `The hub refused the token for ${options.url}: check HOOKTAP_HUB_TOKEN, .hooktap/hub-token, --hub-token or hub.token in the config ` +
          "(the token printed by `hooktap hub channel create`).",
      );
    }
    if (!response.ok) {
      throw new HubError(
        `The hub answered ${response.status}: ${(await response.text()).trim().slice(0, 500)}`,
      );
    }
    status = await response.json() as WireStatus;
    if (typeof status !== "object" || status === null || !Number.isSafeInteger(status.head)) {
      throw new HubError(`${base} did not answer as a hooktap hub does.`);
    }
  } catch (error) {
    if (error instanceof HubError) throw error;
    throw new HubError(`Cannot reach the hub at ${base}: ${(error as Error).message}`);
  }
  const saved = await readHubState(options.paths);
  let refusedSeen = saved?.channel === channel ? (saved.refusedSeen ?? 0) : 0;
  const noteRefused = (r: { count: number; at: string } | undefined) => {
    if (r === undefined || !Number.isSafeInteger(r.count) || r.count <= refusedSeen) return;
    options.onRefused?.({ count: r.count - refusedSeen, at: String(r.at) });
    refusedSeen = r.count;
  };
  const state: HubState = {
    v: 1,
    url: options.url,
    channel,
    seq: saved?.channel === channel ? saved.seq : 0,
    connected: true,
    waiting: Math.max(0, status.head - (saved?.channel === channel ? saved.seq : 0)),
    lastReceivedAt: saved?.channel === channel ? saved.lastReceivedAt : null,
    updatedAt: new Date().toISOString(),
    ...(options.clientName === undefined ? {} : { client: options.clientName }),
  };
  // Away longer than the retention: the hub dropped events this store never got. Said, then skipped.
  const skipGap = (low: number | undefined, lowAt: string | null | undefined) => {
    if (low === undefined || !Number.isSafeInteger(low) || low <= state.seq) return;
    const known = saved?.channel === channel;
    if (known || state.seq > 0) {
      options.onGap?.({ missed: low - state.seq, since: state.lastReceivedAt ?? lowAt ?? null });
    }
    state.seq = low;
  };
  skipGap(status.low, status.lowAt);
  noteRefused(status.refused);
  /** Saves the state; `tell`: and reports it (not on a stop: a clean stop is no lost connection). */
  const publish = async (tell = true) => {
    state.updatedAt = new Date().toISOString();
    state.refusedSeen = refusedSeen;
    await writeHubState(options.paths, state);
    if (tell) options.onState?.({ ...state });
  };
  await publish();
  const stopping = new AbortController();
  let acking = Promise.resolve();
  let trusted = false;
  const pollWait = options.pollWaitMs ?? 25_000;

  async function handleBatch(events: WireEvent[]): Promise<void> {
    const after = state.seq;
    // After a start or a failure the log is the final word on what is already stored; in between,
    // every event after the cursor is new (this client stored and saved each batch before the next).
    const already = trusted ? new Set<number>() : await storedHubSeqs(options.paths, channel, after);
    options.order.reset(after);
    let failed: number | undefined;
    await Promise.all(events.map(async (e) => {
      if (already.has(e.seq)) return options.order.done(e.seq);
      try {
        const bytes = Uint8Array.fromBase64(e.body);
        const response = await options.handle(requestOf(e, bytes), {
          remoteAddr: { transport: "tcp", hostname: e.remoteAddr, port: 0 },
          hub: { channel, seq: e.seq, receivedAt: e.receivedAt },
        });
        if (response.status === 503 || response.status === 500) failed = Math.min(failed ?? e.seq, e.seq);
        if (e.answer) {
          const answer: WireAnswer = {
            status: response.status,
            headers: [...response.headers],
            body: new Uint8Array(await response.arrayBuffer()).toBase64(),
          };
          doFetch(`${api}/answers/${e.seq}`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json" },
            body: JSON.stringify(answer),
          }).then((r) => r.body?.cancel()).catch(() => {});
        } else await response.body?.cancel();
      } finally {
        options.order.done(e.seq);
      }
    }));
    // Everything before the first failure is durable (the handler answers only after the fdatasync).
    const last = failed === undefined ? events.at(-1)!.seq : failed - 1;
    if (last > state.seq) {
      state.seq = last;
      state.lastReceivedAt = events.find((e) => e.seq === last)?.receivedAt ?? state.lastReceivedAt;
      await publish();
      // The ack runs beside the next poll (which carries the cursor itself), one at a time, in order.
      acking = acking.then(async () => {
        const ack = await doFetch(`${api}/ack?${who}`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ seq: last }),
        });
        await ack.body?.cancel();
      }).catch(() => {});
    }
    trusted = failed === undefined;
    if (failed !== undefined) throw new Error("the local store could not save an event; retrying");
  }

  async function fetchPoll(after: number, wait: number): Promise<WirePoll> {
    const response = await doFetch(`${api}/events?after=${after}&wait=${wait}&${who}`, {
      headers: auth,
      signal: stopping.signal,
    });
    if (response.status === 401) {
      await response.body?.cancel();
      throw new Error("the hub refused the token (revoked?)");
    }
    if (!response.ok) {
      const why = (await response.text().catch(() => "")).trim().slice(0, 300);
      throw new Error(`the hub answered ${response.status}${why === "" ? "" : `: ${why}`}`);
    }
    const poll: unknown = await response.json();
    const problem = wirePollProblem(poll, after);
    if (problem !== undefined) {
      throw new Error(`the hub sent a batch this client refuses (${problem}); nothing written`);
    }
    const ended = (poll as WirePoll).ended;
    if (ended !== undefined) {
      // A held poll ended by a refusal (its 200 went out before): the same as that status up front.
      if (ended.status === 401) throw new Error("the hub refused the token (revoked?)");
      throw new Error(`the hub answered ${ended.status}: ${String(ended.message).slice(0, 300)}`);
    }
    return poll as WirePoll;
  }

  async function loop(): Promise<void> {
    let backoff = 500;
    // With a backlog, the next batch is fetched while this one is stored (catch-up).
    let prefetched: { after: number; poll: Promise<WirePoll> } | undefined;
    while (!stopping.signal.aborted) {
      try {
        const ahead = prefetched?.after === state.seq ? prefetched.poll : undefined;
        prefetched?.poll.catch(() => {});
        prefetched = undefined;
        const poll = await (ahead ?? fetchPoll(state.seq, pollWait));
        noteRefused(poll.refused);
        if (poll.low !== undefined && poll.low > state.seq) {
          skipGap(poll.low, poll.lowAt);
          trusted = false;
          await publish();
        }
        const events = poll.events.filter((e) => e.seq > state.seq).sort((a, b) => a.seq - b.seq);
        let changed = false;
        if (!state.connected) {
          state.connected = true;
          delete state.error;
          changed = true;
        }
        const last = events.at(-1)?.seq ?? state.seq;
        const waiting = Math.max(0, poll.head - last);
        if (waiting !== state.waiting) changed = true;
        state.waiting = waiting;
        if (events.length > 0) {
          if (waiting > 0) prefetched = { after: last, poll: fetchPoll(last, 0) };
          await handleBatch(events); // publishes
        } else if (changed) await publish();
        backoff = 500;
      } catch (error) {
        if (stopping.signal.aborted) break;
        prefetched?.poll.catch(() => {});
        prefetched = undefined;
        trusted = false;
        state.connected = false;
        state.error = (error as Error).message;
        await publish().catch(() => {});
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
    prefetched?.poll.catch(() => {});
  }

  const running = loop();
  return {
    get state() {
      return { ...state };
    },
    async stop() {
      stopping.abort();
      await running;
      await acking;
      state.connected = false;
      delete state.error;
      await publish(false).catch(() => {});
    },
  };
}
