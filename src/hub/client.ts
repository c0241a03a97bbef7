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
import { hubEventKey, type HubState, readHubState, storedHubSeqs, writeHubState } from "./cursor_file.ts";
import type { HubOrder } from "./order.ts";
import {
  type WireAnswer,
  wireBatchProblem,
  type WireEvent,
  wireEventProblem,
  type WirePoll,
  type WireStatus,
} from "./wire.ts";
import { invokedAs } from "../text/command_line.ts";
import { fetchReason, unreachable } from "./unreachable.ts";
import { safeLine } from "../text/sanitize.ts";
import { sleepUnlessAborted } from "../timer.ts";

/** Options of {@linkcode connectHub}. */
export interface HubClientOptions {
  /** The channel URL: `https://hub.example.com/c/<id>`. */
  url: string;
  token: string;
  /**
   * When the hub refuses the token: what to tell the user to do (the end of a sentence), and how to read the
   * token again from where it came from (a file): a changed one is tried at once.
   */
  tokenSource?: { fix: string; reread?: () => Promise<string | undefined> };
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
  /**
   * Called for an event this client refuses (what the hub sent breaks the client's checks: a hub that did not
   * check it stored it), before the cursor passes it: it is skipped, never stored here.
   */
  onSkipped?: (skipped: HubSkipped) => void;
  /**
   * Called when the hub's last event is before this client's cursor (a hub restored from a backup, or its
   * store replaced): the client goes back to the hub's last event and takes what follows as new.
   */
  onRewound?: (rewound: { head: number; was: number; to: number }) => void;
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

/** An event the client refused and skipped (see {@linkcode HubClientOptions.onSkipped}). */
export interface HubSkipped {
  seq: number;
  /** What is wrong with it (`bad headers (a header name of 300 characters; 1 to 256 are allowed)`). */
  problem: string;
  /**
   * The poll URL that shows it as the hub sent it (with the channel's token), while the hub still holds it:
   * until every client of the channel has acknowledged past it, within the channel's retention.
   */
  show: string;
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

/** The hub refused the channel's token on a poll (rotated or revoked since dev connected). */
class TokenRefusedError extends Error {
  constructor() {
    super("the hub refused the token (rotated or revoked?)");
    this.name = "TokenRefusedError";
  }
}

/** A held poll ended because the channel was deleted at the hub (`hub channel rm`): nothing waits there now. */
class ChannelGoneError extends Error {
  constructor() {
    super("the channel was deleted at the hub");
    this.name = "ChannelGoneError";
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
      `--hub must be a channel URL like https://hub.example.com/c/<id> (from \`${invokedAs()} hub channel create\`), got "${url}".`,
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

/** The channel's endpoints and the client's credentials, as every request of a session uses them. */
interface Link {
  /** `https://hub.example.com/api/channels/<id>`. */
  api: string;
  /** `client=<name>`, URL-encoded. */
  who: string;
  /** Replaced when a new token is read (after the hub refused the old one). */
  auth: { authorization: string };
  fetch: typeof fetch;
}

/**
 * The client's hello: the channel's status for it (registers the client).
 * @throws {HubError} when the hub refuses the token, answers otherwise than a hub does, or cannot be reached.
 */
async function hello(link: Link, url: string, base: string): Promise<WireStatus> {
  try {
    // `hello=1`: this is dev's connection, which registers the client (a status read alone does not).
    const response = await link.fetch(`${link.api}?${link.who}&hello=1`, { headers: link.auth });
    if (response.status === 401) {
      await response.body?.cancel();
      throw new HubError(
        `The hub refused the token for ${url}: check HOOKTAP_HUB_TOKEN, .hooktap/hub-token, --hub-token or hub.token in the config ` +
          `(the token printed by \`${invokedAs()} hub channel create\`), or the channel was deleted at the hub ` +
          `(then \`${invokedAs()} hub channel create\` makes a new one, with a new URL and token).`,
      );
    }
    if (!response.ok) {
      // What a hub answers is shown as text: a hostile one (or a proxy in between) sends no control codes.
      throw new HubError(
        `The hub answered ${response.status}: ${safeLine((await response.text()).trim().slice(0, 500))}`,
      );
    }
    const status = await response.json().catch(() => null) as WireStatus | null;
    if (typeof status !== "object" || status === null || !Number.isSafeInteger(status.head)) {
      throw new HubError(`${base} did not answer as a hooktap hub does.`);
    }
    return status;
  } catch (error) {
    if (error instanceof HubError) throw error;
    throw new HubError(unreachable(base, error));
  }
}

/** One running client: its state (saved after each change), the poll loop, the batches, the acks. */
class HubSession {
  readonly state: HubState;
  readonly stopping = new AbortController();
  #refusedSeen: number;
  #acking = Promise.resolve();
  /** The cursor went back (the hub's numbers did): the hub's low mark that follows is no gap. */
  #rewound = false;
  /** Whether every event after the cursor is new (else the log says what is already stored). */
  #trusted = false;
  #running: Promise<void> | undefined;

  constructor(
    readonly options: HubClientOptions,
    readonly link: Link,
    readonly channel: string,
    readonly saved: HubState | null | undefined,
    status: WireStatus,
  ) {
    const known = saved?.channel === channel;
    this.#refusedSeen = known ? (saved!.refusedSeen ?? 0) : 0;
    this.state = {
      v: 1,
      url: options.url,
      channel,
      seq: known ? saved!.seq : 0,
      ...(known && typeof saved!.seqAt === "string" ? { seqAt: saved!.seqAt } : {}),
      connected: true,
      waiting: 0, // set below, once the gap (a new client starts at the hub's low mark) is skipped
      lastReceivedAt: known ? saved!.lastReceivedAt : null,
      updatedAt: new Date().toISOString(),
      ...(options.clientName === undefined ? {} : { client: options.clientName }),
    };
    this.skipGap(status.low, status.lowAt);
    this.rewind(status.head);
    this.state.waiting = Math.max(0, status.head - this.state.seq);
    this.noteRefused(status.refused);
  }

  /** Reports the requests the hub's storage refused since the last report. */
  noteRefused(r: { count: number; at: string } | undefined): void {
    if (r === undefined || !Number.isSafeInteger(r.count) || r.count <= this.#refusedSeen) return;
    this.options.onRefused?.({ count: r.count - this.#refusedSeen, at: String(r.at) });
    this.#refusedSeen = r.count;
  }

  /** Away longer than the retention: the hub dropped events this store never got. Said, then skipped. */
  skipGap(low: number | undefined, lowAt: string | null | undefined): void {
    const { state } = this;
    if (low === undefined || !Number.isSafeInteger(low) || low <= state.seq) return;
    delete state.seqAt;
    const known = this.saved?.channel === this.channel;
    // After a rewind to the hub's oldest event, what the hub dropped before it is no gap of this client's.
    if (!this.#rewound && (known || state.seq > 0)) {
      this.options.onGap?.({ missed: low - state.seq, since: state.lastReceivedAt ?? lowAt ?? null });
    }
    state.seq = low;
  }

  /**
   * The hub's last event (`head`) is before this client's cursor, or (`another`) its event at the cursor is
   * not the one stored here: the hub was restored from a backup (or its store replaced) and numbers events
   * again. Said, then the cursor goes back to 0 (the hub's oldest event); the events stored here are told
   * from those numbered again by their arrival time ({@linkcode hubEventKey}). `false` when nothing went back.
   */
  rewind(head: number, another = false): boolean {
    const { state } = this;
    if (!Number.isSafeInteger(head) || state.seq === 0 || (!another && head >= state.seq)) return false;
    // From the hub's oldest event: the events it numbered again may be anywhere after its restored last.
    this.options.onRewound?.({ head, was: state.seq, to: 0 });
    state.seq = 0;
    delete state.seqAt;
    this.#rewound = true;
    return true;
  }

  /** Saves the state; `tell`: and reports it (not on a stop: a clean stop is no lost connection). */
  async publish(tell = true): Promise<void> {
    this.state.updatedAt = new Date().toISOString();
    this.state.refusedSeen = this.#refusedSeen;
    await writeHubState(this.options.paths, this.state);
    if (tell) this.options.onState?.({ ...this.state });
  }

  /** Hands one event to dev's handler (and its answer to a waiting sender): its handler's status. */
  async #handleEvent(e: WireEvent): Promise<number> {
    const { link } = this;
    const bytes = Uint8Array.fromBase64(e.body);
    const response = await this.options.handle(requestOf(e, bytes), {
      remoteAddr: { transport: "tcp", hostname: e.remoteAddr, port: 0 },
      hub: { channel: this.channel, seq: e.seq, receivedAt: e.receivedAt },
    });
    if (e.answer) {
      const answer: WireAnswer = {
        status: response.status,
        headers: [...response.headers],
        body: new Uint8Array(await response.arrayBuffer()).toBase64(),
      };
      link.fetch(`${link.api}/answers/${e.seq}`, {
        method: "POST",
        headers: { ...link.auth, "content-type": "application/json" },
        body: JSON.stringify(answer),
      }).then((r) => r.body?.cancel()).catch(() => {});
    } else await response.body?.cancel();
    return response.status;
  }

  /** Stores a batch through dev's handler, saves the cursor and acknowledges (beside the next poll). */
  async handleBatch(events: WireEvent[]): Promise<void> {
    const { options, state } = this;
    const after = state.seq;
    // After a start or a failure the log is the final word on what is already stored; in between,
    // every event after the cursor is new (this client stored and saved each batch before the next).
    const already = this.#trusted
      ? new Set<string>()
      : await storedHubSeqs(options.paths, this.channel, after);
    options.order.reset(after);
    let failed: number | undefined;
    const skipped = new Map<number, string>();
    await Promise.all(events.map(async (e) => {
      // An event the client refuses is skipped (never stored); the batch's other events are taken.
      const stored = already.has(hubEventKey(e.seq, e.receivedAt));
      const problem = stored ? undefined : wireEventProblem(e);
      if (problem !== undefined) skipped.set(e.seq, problem);
      if (stored || problem !== undefined) {
        options.order.done(e.seq);
        return options.order.handled(e.seq);
      }
      try {
        const status = await this.#handleEvent(e);
        if (status === 503 || status === 500) failed = Math.min(failed ?? e.seq, e.seq);
      } finally {
        options.order.done(e.seq);
        options.order.handled(e.seq); // its line (given by then) may go, and those after it waiting for it
      }
    }));
    // Everything before the first failure is durable (the handler answers only after the fdatasync).
    const last = failed === undefined ? events.at(-1)!.seq : failed - 1;
    if (last > state.seq) {
      // Each skip is said before the cursor passes it (one after a failure is said when it is reached again).
      for (const [seq, problem] of [...skipped].sort(([a], [b]) => a - b)) {
        if (seq <= last) this.#skip(seq, problem);
      }
      state.seq = last;
      const at = events.find((e) => e.seq === last)?.receivedAt;
      if (at === undefined) delete state.seqAt;
      else state.seqAt = at;
      const stored = events.findLast((e) => e.seq <= last && !skipped.has(e.seq));
      state.lastReceivedAt = stored?.receivedAt ?? state.lastReceivedAt;
      await this.publish();
      this.#ack(last);
    }
    this.#trusted = failed === undefined;
    if (failed !== undefined) throw new Error("the local store could not save an event; retrying");
  }

  /** Reports a skipped event, with the poll that shows it at the hub. */
  #skip(seq: number, problem: string): void {
    const { link } = this;
    this.options.onSkipped?.({
      seq,
      problem,
      show: `${link.api}/events?after=${seq - 1}&limit=1&wait=0&${link.who}`,
    });
  }

  /** The ack runs beside the next poll (which carries the cursor itself), one at a time, in order. */
  #ack(seq: number): void {
    const { link } = this;
    this.#acking = this.#acking.then(async () => {
      const ack = await link.fetch(`${link.api}/ack?${link.who}`, {
        method: "POST",
        headers: { ...link.auth, "content-type": "application/json" },
        body: JSON.stringify({ seq }),
      });
      await ack.body?.cancel();
    }).catch(() => {});
  }

  /** One poll: the events after `after`, waiting up to `wait` ms. */
  async fetchPoll(after: number, wait: number, limit?: number): Promise<WirePoll> {
    const { link } = this;
    const bound = limit === undefined ? "" : `&limit=${limit}`;
    const response = await link.fetch(`${link.api}/events?after=${after}&wait=${wait}${bound}&${link.who}`, {
      headers: link.auth,
      signal: this.stopping.signal,
    });
    if (response.status === 401) {
      await response.body?.cancel();
      throw new TokenRefusedError();
    }
    if (!response.ok) {
      const why = (await response.text().catch(() => "")).trim().slice(0, 300);
      throw new Error(`the hub answered ${response.status}${why === "" ? "" : `: ${why}`}`);
    }
    const poll: unknown = await response.json();
    // A bad envelope refuses the whole batch; a bad event in a good one is skipped alone (handleBatch).
    const problem = wireBatchProblem(poll, after);
    if (problem !== undefined) {
      throw new Error(`the hub sent a batch this client refuses (${problem}); nothing written`);
    }
    const ended = (poll as WirePoll).ended;
    if (ended !== undefined) {
      // A held poll ended by a refusal (its 200 went out before): the same as that status up front.
      if (ended.status === 401) throw new TokenRefusedError();
      // Only a deletion ends a held poll with 404 (the token was checked when it began).
      if (ended.status === 404) throw new ChannelGoneError();
      throw new Error(`the hub answered ${ended.status}: ${String(ended.message).slice(0, 300)}`);
    }
    return poll as WirePoll;
  }

  /**
   * Takes in one poll's answer: gaps and refusals reported, the new events stored (with a backlog, the next
   * batch is fetched meanwhile: the prefetch returned), the state saved when it changed.
   */
  async #take(poll: WirePoll): Promise<{ after: number; poll: Promise<WirePoll> } | undefined> {
    const { state } = this;
    this.noteRefused(poll.refused);
    if (poll.events.length === 0 && this.rewind(poll.head)) {
      this.#trusted = false;
      await this.publish();
      return undefined; // the next poll asks from the hub's last event
    }
    if (poll.low !== undefined && poll.low > state.seq) {
      this.skipGap(poll.low, poll.lowAt);
      this.#trusted = false;
      await this.publish();
    }
    this.#rewound = false;
    const events = poll.events.filter((e) => e.seq > state.seq).sort((a, b) => a.seq - b.seq);
    let changed = false;
    if (!state.connected) {
      state.connected = true;
      delete state.error;
      delete state.tokenRefused;
      this.#tokenTries = 0;
      this.#refusedAuth = undefined;
      changed = true;
      if (events.length > 0) {
        // Said before the batch is stored: "connected again; catching up from event <first>".
        state.waiting = Math.max(0, poll.head - state.seq);
        await this.publish();
        changed = false;
      }
    }
    const last = events.at(-1)?.seq ?? state.seq;
    const waiting = Math.max(0, poll.head - last);
    if (waiting !== state.waiting) changed = true;
    state.waiting = waiting;
    let prefetched: { after: number; poll: Promise<WirePoll> } | undefined;
    if (events.length > 0) {
      if (waiting > 0) prefetched = { after: last, poll: this.fetchPoll(last, 0) };
      try {
        await this.handleBatch(events); // publishes
      } catch (error) {
        prefetched?.poll.catch(() => {});
        throw error;
      }
    } else if (changed) await this.publish();
    return prefetched;
  }

  /** Polls until stopped, backing off after a failure (each one reported as a lost connection). */
  async loop(): Promise<void> {
    const { state } = this;
    const pollWait = this.options.pollWaitMs ?? 25_000;
    let backoff = 500;
    // With a backlog, the next batch is fetched while this one is stored (catch-up).
    let prefetched: { after: number; poll: Promise<WirePoll> } | undefined;
    while (!this.stopping.signal.aborted) {
      try {
        const ahead = prefetched?.after === state.seq ? prefetched.poll : undefined;
        prefetched?.poll.catch(() => {});
        prefetched = undefined;
        // Not connected (a start of the loop after a failure or a refused token): a poll that answers at
        // once, so "connected again" is said on the first poll that works, not when an event arrives.
        const wait = state.connected ? pollWait : 0;
        if (!state.connected || !this.#cursorChecked) await this.#checkCursor();
        prefetched = await this.#take(await (ahead ?? this.fetchPoll(state.seq, wait)));
        backoff = 500;
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        prefetched?.poll.catch(() => {});
        prefetched = undefined;
        this.#trusted = false;
        state.connected = false;
        if (error instanceof TokenRefusedError) {
          await this.#tokenRefused(error);
          continue;
        }
        if (error instanceof ChannelGoneError) {
          // No retry: a deleted channel's id never opens again, and its token is refused from now on.
          state.error = error.message;
          state.gone = true;
          await this.publish().catch(() => {});
          break;
        }
        state.error = error instanceof TypeError ? fetchReason(error) : (error as Error).message;
        await this.publish().catch(() => {});
        await this.#pause(backoff);
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
    prefetched?.poll.catch(() => {});
  }

  #cursorChecked = false;

  /**
   * At the start and on each reconnect: the hub's event at this client's cursor must be the one stored here
   * (its arrival time). Another one means the hub was restored from a backup (or its store replaced) after
   * new events were numbered again: the cursor goes back to the hub's oldest event, and the events stored
   * here are told apart by their arrival time ({@linkcode hubEventKey}), so none is taken twice or lost.
   */
  async #checkCursor(): Promise<void> {
    const { state } = this;
    this.#cursorChecked = true;
    if (state.seq === 0 || state.seqAt === undefined || this.#rewound) return;
    const poll = await this.fetchPoll(state.seq - 1, 0, 1);
    const at = poll.events[0];
    if (at === undefined || at.seq !== state.seq || at.receivedAt === state.seqAt) return;
    this.rewind(poll.head, true);
    this.#trusted = false;
    await this.publish(false);
  }

  /** Waits `ms`, or less when the client stops. */
  async #pause(ms: number): Promise<void> {
    await sleepUnlessAborted(ms, this.stopping.signal);
  }

  /** Tokens the hub refused in a row (a changed one that is refused too counts again), and the last one. */
  #tokenTries = 0;
  #refusedAuth: string | undefined;

  /**
   * The hub refused the token: it is read again from where it came from, and a new one is tried at once.
   * Otherwise dev says once what to do (no "retrying": the same token will not open the channel again), and
   * waits for the token to change (its file read every second) or, with nothing to read again, tries the
   * hub every 10 s quietly.
   */
  async #tokenRefused(error: TokenRefusedError): Promise<void> {
    const { state } = this;
    const source = this.options.tokenSource;
    const refused = this.link.auth.authorization;
    if (await this.#newToken()) return;
    if (refused !== this.#refusedAuth) {
      this.#refusedAuth = refused;
      this.#tokenTries++;
    }
    state.error = error.message;
    state.tokenRefused = { fix: source?.fix ?? "restart dev with the new token", tries: this.#tokenTries };
    await this.publish().catch(() => {});
    if (source?.reread === undefined) return await this.#pause(10_000);
    while (!this.stopping.signal.aborted) {
      await this.#pause(1000);
      if (await this.#newToken()) return;
    }
  }

  /** Reads the token again: `true` when it changed (the next poll carries the new one). */
  async #newToken(): Promise<boolean> {
    const reread = this.options.tokenSource?.reread;
    if (reread === undefined) return false;
    let token: string | undefined;
    const told = this.state.tokenRefused;
    try {
      token = await reread();
    } catch (error) {
      // The file is there but refused (a mode others can read, not a plain file): said once.
      const problem = (error as Error).message;
      if (told !== undefined && told.problem !== problem) {
        this.state.tokenRefused = { ...told, problem };
        await this.publish().catch(() => {});
      }
      return false;
    }
    if (told?.problem !== undefined) {
      this.state.tokenRefused = { fix: told.fix, tries: told.tries };
      await this.publish().catch(() => {});
    }
    if (token === undefined || `Bearer ${token}` === this.link.auth.authorization) return false;
    this.link.auth = { authorization: `Bearer ${token}` };
    return true;
  }

  /**
   * Tells the hub this client stops (a clean stop), so it no longer holds senders for its answer. Best
   * effort, at most 2 s: a hub that is gone or refuses the token changes nothing (it then counts the client
   * as connected for a moment after its last poll, as for a killed dev).
   */
  async #bye(): Promise<void> {
    const { link } = this;
    try {
      const r = await link.fetch(`${link.api}/bye?${link.who}`, {
        method: "POST",
        headers: link.auth,
        signal: AbortSignal.timeout(2000),
      });
      await r.body?.cancel();
    } catch { /* best effort */ }
  }

  /** Starts the poll loop. */
  start(): void {
    this.#running = this.loop();
  }

  /** Stops after the batch in hand is stored and acknowledged, and tells the hub it leaves. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.#running;
    await this.#acking;
    await this.#bye();
    this.state.connected = false;
    delete this.state.error;
    await this.publish(false).catch(() => {});
  }
}

/**
 * Checks the token, reads the local cursor and starts the poll loop.
 * @throws {HubError} when the hub refuses the token or cannot be reached.
 */
export async function connectHub(options: HubClientOptions): Promise<HubClient> {
  const { base, channel } = parseChannelUrl(options.url);
  const link: Link = {
    api: `${base}/api/channels/${channel}`,
    who: `client=${encodeURIComponent(options.clientName ?? "default")}`,
    auth: { authorization: `Bearer ${options.token}` },
    fetch: options.fetch ?? globalThis.fetch,
  };
  const status = await hello(link, options.url, base);
  const session = new HubSession(options, link, channel, await readHubState(options.paths), status);
  await session.publish();
  session.start();
  return {
    get state() {
      return { ...session.state };
    },
    stop: () => session.stop(),
  };
}
