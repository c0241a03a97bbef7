/**
 * A minimal HTTP/1.1 client over `Deno.connect`, made for
 * forwarding: the request goes out as one buffer holding exactly the header
 * lines given (case, order, repeats; nothing added), the answer's headers come
 * back in the order received, bodies framed by `Content-Length`, chunked, or
 * the connection closing. Connections are kept alive and pooled per
 * host:port. A pooled connection is read while it waits, so one the server
 * closes is dropped then; a request is sent again on a fresh connection only
 * when the kept-alive one failed before the request was written (once written,
 * the server may have read it: a second send would reach the app twice in one
 * attempt). Redirects are
 * never followed. It costs a fraction of `node:http`'s CPU per request (see
 * docs/forwarding.md). Timeouts of kept-alive requests are checked by one ticker per pool, every
 * 50 ms; a one-shot request (`reuse: false`) has a timer of its own (AbortSignal.timeout).
 * @module
 */

/** Where to connect (plain TCP: https targets go through `node:https`, see ./client.ts). */
export interface Http1Origin {
  /** Host name or IP (IPv6 without brackets). */
  hostname: string;
  port: number;
  /** `hostname:port`, when the caller keeps one origin object from request to request (./client.ts). */
  key?: string;
}

/** One request: the header list is sent as is (the caller puts `Host` in it, or gives `host`). */
export interface Http1Request {
  method: string;
  /** Path and query, `/hooks?x=1`. */
  target: string;
  /** When given, sent first as `Host: <host>`, before `headers`. */
  host?: string;
  headers: readonly (readonly [string, string])[];
  body: Uint8Array | null;
  /**
   * The request's bytes, built ahead by {@linkcode encodeRequest} from these same fields (a forwarder's event
   * read back from the store waits as its bytes, not as the parsed event): written as they are, `headers` and
   * `body` not read.
   */
  encoded?: Uint8Array;
}

/** Options of {@linkcode Http1Pool.request}. */
export interface Http1Options {
  /** Longest wait for the whole answer, ms. */
  timeoutMs: number;
  /** Body bytes kept; the rest is read and counted. */
  maxBody: number;
  signal?: AbortSignal | undefined;
  /** Close the connection after this answer instead of pooling it. @default true */
  reuse?: boolean;
  /**
   * Charged with the body kept (a relay's shared bound, ./relay_budget.ts): a declared length at once, so an
   * answer is kept whole or not at all; else each piece as it arrives. Once it refuses, only the first
   * `keepRefused` bytes are kept, uncharged (everything taken is given back), the rest is read and counted,
   * and the answer says `overBudget`.
   */
  budget?: BodyBudgetLike | undefined;
}

/** What {@linkcode Http1Options.budget} needs: a charge that may refuse. */
export interface BodyBudgetLike {
  /** Charges `bytes` and says true, or false (nothing charged) when over the bound. */
  take(bytes: number): boolean;
  /** Gives back everything taken (called once it refused; safe to call twice). */
  release(): void;
  /** The bytes of a refused body still kept (for a record of its start). */
  readonly keepRefused: number;
}

/** The first `max` bytes of `parts` (in place), and their size. */
export function keepFirst(parts: Uint8Array[], max: number): number {
  let n = 0;
  let i = 0;
  for (; i < parts.length && n < max; i++) {
    if (parts[i]!.length > max - n) parts[i] = parts[i]!.subarray(0, max - n);
    n += parts[i]!.length;
  }
  parts.length = i;
  return n;
}

/**
 * An answer's body as it arrives: its first `maxBody` bytes kept, every byte counted. Under a budget (a
 * relay's), a declared length is charged at once, so an answer is kept whole or not at all (by the piece,
 * answers arriving together would each take a share and all be refused); a body of unknown length is
 * charged piece by piece. A refused body keeps the budget's `keepRefused` bytes, uncharged. Used by this
 * client and by node:https's (./client.ts).
 */
export class AnswerBody {
  readonly #parts: Uint8Array[] = [];
  readonly #budget: BodyBudgetLike | undefined;
  readonly #declared: boolean;
  #max: number;
  #kept = 0;
  #size = 0;
  #refused = false;
  #views = false;

  /** @param declared the length the answer declares, when it has a body of that length. */
  constructor(maxBody: number, budget: BodyBudgetLike | undefined, declared: number | undefined) {
    this.#max = maxBody;
    this.#budget = budget;
    this.#declared = declared !== undefined;
    if (budget !== undefined && declared !== undefined && !budget.take(Math.min(declared, maxBody))) {
      this.#refuse(maxBody);
    }
  }

  #refuse(keep: number): void {
    this.#refused = true;
    this.#budget!.release();
    this.#max = Math.min(keep, this.#budget!.keepRefused);
  }

  /**
   * Takes the next bytes: a copy of what is kept, or a view of them when `owned` (nothing else reuses them;
   * the body {@linkcode finish} gives is still a copy of its own).
   */
  add(bytes: Uint8Array, owned = false): void {
    this.#size += bytes.length;
    if (this.#kept >= this.#max) return;
    const room = this.#max - this.#kept;
    if (
      this.#budget !== undefined && !this.#declared && !this.#refused &&
      !this.#budget.take(Math.min(bytes.length, room))
    ) {
      this.#refuse(this.#kept);
      this.#kept = keepFirst(this.#parts, this.#max);
      return;
    }
    if (owned) this.#views = true;
    const piece = owned ? bytes.subarray(0, room) : bytes.slice(0, room);
    this.#parts.push(piece);
    this.#kept += piece.length;
  }

  /** The kept body and what an answer says of it. */
  finish(): Pick<Http1Response, "body" | "bodySize" | "truncated" | "overBudget"> {
    // A body of its own: a single piece is one only when it was copied in. Joined here rather than by
    // ../bytes.ts's concatBytes: this module imports nothing (one module more for every `hooktap trigger`).
    const parts = this.#parts;
    let body: Uint8Array;
    if (parts.length === 1 && !this.#views) body = parts[0]!;
    else {
      body = new Uint8Array(this.#kept);
      let at = 0;
      for (const p of parts) {
        body.set(p, at);
        at += p.length;
      }
    }
    const out: Pick<Http1Response, "body" | "bodySize" | "truncated" | "overBudget"> = {
      body,
      bodySize: this.#size,
      truncated: this.#size > this.#kept,
    };
    if (this.#refused) out.overBudget = true;
    return out;
  }
}

/** The answer. */
export interface Http1Response {
  status: number;
  statusText: string;
  /** Response headers in the order received, repeats kept. */
  headers: [string, string][];
  /** The first `maxBody` bytes of the body. */
  body: Uint8Array;
  /** Bytes of body received in all. */
  bodySize: number;
  truncated: boolean;
  /** The budget ({@linkcode Http1Options.budget}) refused to keep more of the body: `body` is its start. */
  overBudget?: true;
}

/** Why there was no answer, from the client's side. */
export class Http1Error extends Error {
  readonly kind: "timeout" | "reset" | "protocol" | "aborted" | "invalid";
  constructor(kind: Http1Error["kind"], message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "Http1Error";
    this.kind = kind;
  }
}

const MAX_HEAD = 64 * 1024;
/** The largest write buffer a connection keeps; a larger request gets a buffer of its own. */
const MAX_WBUF = 256 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;

/** Latin-1 bytes of `s` into `out` at `at` (header text is bytes, as Deno's Headers hold it). */
function putLatin1(s: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < s.length; i++) out[at++] = s.charCodeAt(i) & 0xff;
  return at;
}

/**
 * The size in bytes of the request's head (request line, header lines, blank line), checked. Header text
 * is latin-1, one byte a character.
 */
function headSize(request: Http1Request): number {
  if (!TOKEN.test(request.method)) throw new Http1Error("invalid", `invalid method ${request.method}`);
  if (/[\s\0]/.test(request.target)) throw new Http1Error("invalid", `invalid request target`);
  let size = request.method.length + request.target.length + 12; // "M T HTTP/1.1\r\n"
  if (request.host !== undefined) {
    if (BAD_VALUE.test(request.host)) throw new Http1Error("invalid", `invalid value of header Host`);
    size += request.host.length + 8; // "Host: " and CRLF
  }
  const headers = request.headers;
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i]![0];
    const value = headers[i]![1];
    if (!TOKEN.test(name)) throw new Http1Error("invalid", `invalid header name ${JSON.stringify(name)}`);
    if (BAD_VALUE.test(value)) throw new Http1Error("invalid", `invalid value of header ${name}`);
    size += name.length + value.length + 4; // ": " and CRLF
  }
  return size + 2;
}

/**
 * The request as one buffer; with `lend`, into the buffer `lend(size)` returns (of that size: a view of a
 * larger buffer shared by many requests, so that each needs no ArrayBuffer of its own).
 * @throws {Http1Error} `invalid` for a method, target or header that cannot be sent.
 */
export function encodeRequest(request: Http1Request, lend?: (size: number) => Uint8Array): Uint8Array {
  const headBytes = headSize(request);
  return encodeWithHead(request, headBytes, lend?.(headBytes + (request.body?.length ?? 0)));
}

/**
 * The request (its head of `headBytes` bytes, then the body) as one buffer: written into `into` when it is
 * large enough (a connection's own write buffer, reused from request to request: a fresh ArrayBuffer per
 * request is memory outside the heap that the garbage collector must track and free), else a new one. The
 * head is written piece by piece, never built as one string (the string and its pieces were ~3 KB of the
 * heap per delivery, issue 36).
 */
function encodeWithHead(request: Http1Request, headBytes: number, into?: Uint8Array): Uint8Array {
  const body = request.body;
  const size = headBytes + (body?.length ?? 0);
  const out = into === undefined || into.length < size
    ? new Uint8Array(size)
    : into.length === size
    ? into
    : into.subarray(0, size);
  let at = putLatin1(request.method, out, 0);
  out[at++] = 32;
  at = putLatin1(request.target, out, at);
  at = putLatin1(" HTTP/1.1\r\n", out, at);
  if (request.host !== undefined) {
    at = putLatin1("Host: ", out, at);
    at = putLatin1(request.host, out, at);
    out[at++] = 13;
    out[at++] = 10;
  }
  const headers = request.headers;
  for (let i = 0; i < headers.length; i++) {
    at = putLatin1(headers[i]![0], out, at);
    out[at++] = 58; // ":"
    out[at++] = 32;
    at = putLatin1(headers[i]![1], out, at);
    out[at++] = 13;
    out[at++] = 10;
  }
  out[at++] = 13;
  out[at++] = 10;
  if (body !== null) out.set(body, at);
  return out;
}

const ascii = new TextDecoder();
const latin1 = (bytes: Uint8Array): string => {
  // An answer's head is ASCII nearly always: decoded by the runtime, without `apply`'s list of every byte.
  let high = false;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! > 0x7f) {
      high = true;
      break;
    }
  }
  if (!high) return ascii.decode(bytes);
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  }
  return s;
};

/** One connection with its read buffer. */
class Connection {
  buf = new Uint8Array(16 * 1024);
  /** Where requests are encoded (one at a time: the next waits for this one's answer). */
  wbuf = new Uint8Array(8 * 1024);
  start = 0;
  end = 0;
  /** Bytes of the current answer received. */
  received = 0;
  reused = false;
  closed = false;
  /** The last answer read leaves the connection open for the next request. */
  keep = false;
  /** The pool's key of its origin, once pooled. */
  key = "";
  /**
   * The read started while it waits in the pool ({@linkcode Connection.watchIdle}): the next answer's first
   * bytes, or the end of stream when the server closes it meanwhile.
   */
  idleRead: Promise<number | null> | undefined;
  constructor(readonly conn: Deno.Conn) {}

  /**
   * Reads while the connection waits in the pool, so that a server closing it (its keep-alive timeout, an app
   * that stopped) is seen then, not when the next request is written to it: `ended` is called when the read
   * ends (end of stream, an error, or bytes no request asked for) before a request took it over.
   */
  watchIdle(ended: (c: Connection) => void): void {
    this.start = this.end = 0; // nothing of an answer is left (only such a connection is pooled)
    const read = this.conn.read(this.buf);
    this.idleRead = read;
    this.#ended = ended;
    read.then(this.#idleDone, this.#idleDone);
  }

  #ended: ((c: Connection) => void) | undefined;
  /**
   * The idle read ended. One function per connection, not one per pooling: no newer idle read can have
   * started when it runs (a request that took this one over awaits it after this reaction, which was added
   * first), so `idleRead` is either this read or taken over (undefined).
   */
  #idleDone = (): void => {
    if (this.idleRead === undefined) return; // a request took it over: its answer reads the result
    this.idleRead = undefined;
    this.close();
    this.#ended?.(this);
  };

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }

  /**
   * Takes the connection out of the pool for a request: from now on its idle read is the answer's first read
   * (an early interim answer, `100 Continue` as Node sends it on the head, may come while a large body is
   * still being written: it must not close the connection under the write).
   */
  takeOver(): void {
    this.#taken = this.idleRead;
    this.idleRead = undefined;
  }
  #taken: Promise<number | null> | undefined;

  /**
   * Starts reading more bytes into the buffer (or takes over the read started while pooled); pass its result
   * to {@linkcode Connection.took}. Apart from {@linkcode Connection.fill}, so the first read of an answer
   * needs no async function of its own.
   */
  readMore(): Promise<number | null> {
    if (this.start > 0 && this.start === this.end) this.start = this.end = 0;
    if (this.end === this.buf.length) {
      const live = this.end - this.start;
      const next = live * 2 > this.buf.length ? new Uint8Array(this.buf.length * 2) : this.buf;
      next.set(this.buf.subarray(this.start, this.end), 0);
      this.buf = next;
      this.start = 0;
      this.end = live;
    }
    const idle = this.idleRead ?? this.#taken;
    this.idleRead = this.#taken = undefined;
    // The whole buffer itself when it is empty: no view made per read.
    return idle ?? this.conn.read(this.end === 0 ? this.buf : this.buf.subarray(this.end));
  }

  /** Counts the `n` bytes a {@linkcode Connection.readMore} read; false at end of stream. */
  took(n: number | null): boolean {
    if (n === null) return false;
    this.end += n;
    this.received += n;
    return true;
  }

  /** Reads more bytes into the buffer; false at end of stream. */
  async fill(): Promise<boolean> {
    return this.took(await this.readMore());
  }

  async write(bytes: Uint8Array): Promise<void> {
    let off = await this.conn.write(bytes);
    while (off < bytes.length) off += await this.conn.write(bytes.subarray(off));
  }

  /** The header block (without the blank line) as latin-1 text, or throws at end of stream. */
  async readHead(): Promise<string> {
    let checked = 0; // bytes after `start` already searched (the buffer may move)
    while (true) {
      const found = indexOfCrlf2(this.buf, this.start + Math.max(0, checked - 3), this.end);
      if (found >= 0) {
        const head = latin1(this.buf.subarray(this.start, found));
        this.start = found + 4;
        return head;
      }
      checked = this.end - this.start;
      if (this.end - this.start > MAX_HEAD) {
        throw new Http1Error("protocol", "the answer's headers are too large");
      }
      if (!(await this.fill())) {
        throw new Http1Error("reset", "the connection was closed before an answer came");
      }
    }
  }

  /** A CRLF-terminated line (chunk sizes, trailers). */
  async readLine(): Promise<string> {
    while (true) {
      const found = indexOf(this.buf, [13, 10], this.start, this.end);
      if (found >= 0) {
        const line = latin1(this.buf.subarray(this.start, found));
        this.start = found + 2;
        return line;
      }
      if (this.end - this.start > MAX_HEAD) throw new Http1Error("protocol", "a chunk line is too long");
      if (!(await this.fill())) {
        throw new Http1Error("reset", "the connection closed in the middle of the answer");
      }
    }
  }

  /** Passes up to `n` bytes (all when `n` is Infinity: until the end of stream) to `sink`. */
  async readBody(n: number, sink: (bytes: Uint8Array) => void): Promise<void> {
    let left = n;
    while (left > 0) {
      if (this.start === this.end && !(await this.fill())) {
        if (n === Infinity) return;
        throw new Http1Error("reset", "the connection closed in the middle of the answer");
      }
      const take = Math.min(left, this.end - this.start);
      sink(this.buf.subarray(this.start, this.start + take));
      this.start += take;
      left -= take;
    }
  }
}

/**
 * Where `\r\n\r\n` starts in `hay[from, to)`, or -1: a plain loop stepping by LF (an answer's head has a
 * CR on every line, so `indexOf(13)` from line to line cost more than the scan).
 */
function indexOfCrlf2(hay: Uint8Array, from: number, to: number): number {
  for (let i = from + 3; i < to; i++) {
    if (hay[i] === 10 && hay[i - 1] === 13 && hay[i - 2] === 10 && hay[i - 3] === 13) return i - 3;
  }
  return -1;
}

function indexOf(hay: Uint8Array, needle: number[], from: number, to: number): number {
  const first = needle[0]!;
  outer: for (
    let i = hay.indexOf(first, from);
    i >= 0 && i + needle.length <= to;
    i = hay.indexOf(first, i + 1)
  ) {
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** How often a pool looks for requests past their time, ms: a timeout fires up to this much late. */
const TICK_MS = 50;

/** The longest delay a timer keeps (2^31 - 1 ms): Deno fires a longer one at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** When a request in flight times out. */
interface Deadline {
  /** `performance.now()` time. */
  at: number;
  fire(): void;
}

/**
 * A request in flight: when it times out, its connection, and why it was stopped (one object, where a deadline
 * object and closures over the request's variables were four per request).
 */
class Call implements Deadline {
  current: Connection | undefined;
  why: Http1Error | undefined;
  constructor(readonly at: number, readonly timeoutMs: number) {}
  /** Stops the request: `error` is what it throws. */
  stop(error: Http1Error): void {
    this.why ??= error;
    this.current?.close();
  }
  fire(): void {
    this.stop(new Http1Error("timeout", `no answer within ${this.timeoutMs} ms`));
  }
}

/** A keep-alive pool of connections per origin. */
export class Http1Pool {
  #idle = new Map<string, Connection[]>();
  /** Idle connections kept per origin. */
  readonly maxIdle: number;
  constructor(options: { maxIdle?: number } = {}) {
    this.maxIdle = options.maxIdle ?? 16;
  }

  /** Closes every idle connection (those in use close when their answer ends). */
  close(): void {
    for (const list of this.#idle.values()) for (const c of list) c.close();
    this.#idle.clear();
  }

  /** Idle connections to `origin`, for tests. */
  idleCount(origin: Http1Origin): number {
    return this.#idle.get(key(origin))?.length ?? 0;
  }

  /** Takes a pooled connection that ended while it waited out of the pool. */
  #dropIdle = (c: Connection): void => {
    const list = this.#idle.get(c.key);
    const at = list?.indexOf(c) ?? -1;
    if (at >= 0) list!.splice(at, 1);
  };

  /** Requests in flight and when each times out. */
  #deadlines = new Set<Deadline>();
  #ticker: ReturnType<typeof setInterval> | undefined;
  /** Whether the ticker holds the event loop open (it does while requests are in flight). */
  #held = false;

  /**
   * Times `deadline` out with one ticker per pool (every {@linkcode TICK_MS} while requests are in
   * flight) instead of a timer per request: a timer set and cleared per delivery cost ~3 µs of dev's CPU.
   * The ticker outlives the last request until its next tick, unref'd (it never keeps a process running):
   * an ordered lane sends one request at a time, and a ticker started and stopped per request was a timer
   * per delivery again (~3.5 % of the send engine's main thread at concurrency 1).
   */
  #watch(deadline: Deadline): void {
    this.#deadlines.add(deadline);
    if (this.#ticker === undefined) this.#ticker = setInterval(this.#tick, TICK_MS);
    else if (!this.#held) Deno.refTimer(this.#ticker);
    this.#held = true;
  }

  #unwatch(deadline: Deadline): void {
    this.#deadlines.delete(deadline);
    if (this.#deadlines.size === 0 && this.#held) {
      Deno.unrefTimer(this.#ticker!);
      this.#held = false;
    }
  }

  #tick = (): void => {
    if (this.#deadlines.size === 0) {
      clearInterval(this.#ticker);
      this.#ticker = undefined;
      this.#held = false;
      return;
    }
    const now = performance.now();
    for (const d of this.#deadlines) {
      if (d.at > now) continue;
      this.#unwatch(d);
      d.fire();
    }
  };

  async #connect(origin: Http1Origin): Promise<Connection> {
    const conn = await connectTcp(origin.hostname, origin.port);
    conn.setNoDelay(true);
    return new Connection(conn);
  }

  /**
   * Sends `request` to `origin` and reads the whole answer.
   * @throws {Http1Error} on timeout, abort, a malformed answer or a closed connection;
   * the runtime's own errors when connecting fails (refused, DNS, TLS).
   */
  async request(origin: Http1Origin, request: Http1Request, options: Http1Options): Promise<Http1Response> {
    const encoded = request.encoded;
    const headBytes = encoded === undefined ? headSize(request) : 0;
    const size = encoded === undefined ? headBytes + (request.body?.length ?? 0) : 0;
    const k = key(origin);
    let current: Connection | undefined;
    const call = new Call(performance.now() + options.timeoutMs, options.timeoutMs);
    // A one-shot request (its connection closed after the answer: `trigger`, the test library) times out
    // with AbortSignal.timeout, which costs nothing to set up, where the first setInterval of a process
    // loads Deno's timers (~5 ms of a `hooktap trigger`); requests on kept-alive connections (dev's
    // forwarder, many a second) share the ticker. Past MAX_TIMER_MS AbortSignal.timeout fires at once.
    const timer = options.reuse === false && options.timeoutMs >= 0 && options.timeoutMs <= MAX_TIMER_MS
      ? AbortSignal.timeout(options.timeoutMs)
      : undefined;
    const onTimeout = timer && (() => call.fire());
    if (timer === undefined) this.#watch(call);
    else timer.addEventListener("abort", onTimeout!, { once: true });
    const onAbort = options.signal && (() => call.stop(new Http1Error("aborted", "cancelled")));
    if (onAbort) options.signal!.addEventListener("abort", onAbort, { once: true });
    try {
      if (options.signal?.aborted) throw new Http1Error("aborted", "cancelled");
      for (let tries = 0;; tries++) {
        const idle = this.#idle.get(k);
        let pooled = idle?.pop();
        while (pooled?.closed) pooled = idle?.pop();
        pooled?.takeOver();
        current = call.current = pooled ?? await this.#connect(origin);
        if (call.why) {
          current.close();
          throw call.why;
        }
        current.reused = pooled !== undefined;
        current.received = 0;
        let written = false;
        try {
          if (current.wbuf.length < size && size <= MAX_WBUF) {
            current.wbuf = new Uint8Array(Math.max(size, current.wbuf.length * 2));
          }
          const bytes = encoded ?? encodeWithHead(request, headBytes, current.wbuf);
          const off = await current.conn.write(bytes);
          if (off < bytes.length) await current.write(bytes.subarray(off));
          written = true;
          // The answer's first read; a small answer is whole in it, taken without an async function per step
          // (readResponse, readHead, fill: a generator and promises each, per delivery).
          if (!current.took(await current.readMore())) {
            throw new Http1Error("reset", "the connection was closed before an answer came");
          }
          const response = takeBuffered(current, request.method, options.maxBody, options.budget) ??
            await readResponse(current, request.method, options.maxBody, options.budget);
          if (current.keep && options.reuse !== false && current.start === current.end) {
            const list = this.#idle.get(k) ?? [];
            if (list.length < this.maxIdle) {
              list.push(current);
              this.#idle.set(k, list);
              current.key = k;
              current.watchIdle(this.#dropIdle);
            } else current.close();
          } else current.close();
          return response;
        } catch (error) {
          current.close();
          if (call.why) throw call.why;
          // A kept-alive connection the server had closed before the request could be written: once more on a
          // fresh one. The other idle ones to that origin are from the same server and closed too (an app
          // that restarted): drop them, so the retry connects anew and says what is true now (`nothing
          // listens` when the app is down). Once written, the server may have read the request (an app that
          // reads it and drops the connection): it is not sent again here, where no one would know.
          if (current.reused && !written && tries === 0 && isClosedError(error)) {
            for (const idle of this.#idle.get(k) ?? []) idle.close();
            this.#idle.delete(k);
            continue;
          }
          throw error;
        }
      }
    } catch (error) {
      throw call.why ?? error;
    } finally {
      if (timer === undefined) this.#unwatch(call);
      else timer.removeEventListener("abort", onTimeout!);
      if (onAbort) options.signal!.removeEventListener("abort", onAbort);
    }
  }
}

function isClosedError(error: unknown): boolean {
  return (error instanceof Http1Error && error.kind === "reset") ||
    error instanceof Deno.errors.ConnectionReset || error instanceof Deno.errors.BrokenPipe ||
    error instanceof Deno.errors.ConnectionAborted || error instanceof Deno.errors.UnexpectedEof ||
    error instanceof Deno.errors.NotConnected;
}

const key = (o: Http1Origin) => o.key ?? `${o.hostname}:${o.port}`;

/** White space as `String.prototype.trim` removes it from a header value (latin-1 text). */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;

/** Whether an answer to `method` with `status` has no body, whatever its Content-Length says (HEAD, 1xx, 204, 304). */
export function answerHasNoBody(method: string, status: number): boolean {
  return method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200);
}

/** Whether `name.toLowerCase() === lower` (`lower` ASCII, lower case), without a lower-cased copy. */
function sameLower(name: string, lower: string): boolean {
  if (name.length !== lower.length) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const l = lower.charCodeAt(i);
    if (c !== l && !(c >= 65 && c <= 90 && c + 32 === l)) return false;
  }
  return true;
}

/** An answer's head, parsed, with what frames its body. */
interface AnswerHead {
  status: number;
  statusText: string;
  headers: [string, string][];
  /** Content-Length, when given. */
  length: number | undefined;
  chunked: boolean;
  /** The connection closes after this answer (HTTP/1.0 without keep-alive, or `Connection: close`). */
  close: boolean;
}

/** `head` (the answer's header block, latin-1, without its blank line) parsed. */
function parseHead(head: string): AnswerHead {
  const eol = head.indexOf("\r\n");
  const firstEnd = eol === -1 ? head.length : eol;
  // The status line, `HTTP/1.x NNN[ text]`, read without a regular expression's match array.
  let ok = firstEnd >= 12 && head.startsWith("HTTP/1.") &&
    (head.charCodeAt(7) === 48 || head.charCodeAt(7) === 49) &&
    head.charCodeAt(8) === 32 && (firstEnd === 12 || head.charCodeAt(12) === 32);
  let status = 0;
  for (let i = 9; ok && i < 12; i++) {
    const d = head.charCodeAt(i) - 48;
    if (d < 0 || d > 9) ok = false;
    else status = status * 10 + d;
  }
  for (let i = 13; ok && i < firstEnd; i++) {
    const c = head.charCodeAt(i);
    if (c === 13 || c === 10) ok = false; // `.` of the status line's pattern: no CR or LF in its text
  }
  if (!ok) {
    const first = head.slice(0, firstEnd);
    throw new Http1Error("protocol", `not an HTTP/1.x answer: ${JSON.stringify(first.slice(0, 80))}`);
  }
  const http10 = head.charCodeAt(7) === 48;
  const statusText = firstEnd > 12 ? head.slice(13, firstEnd) : "";
  const headers: [string, string][] = [];
  let length: number | undefined;
  let chunked = false;
  let close = http10;
  // Each header line sliced once from the head, the value without its surrounding white space (as trim()).
  for (let at = eol; at !== -1;) {
    const start = at + 2;
    const next = head.indexOf("\r\n", start);
    const end = next === -1 ? head.length : next;
    const colon = head.indexOf(":", start);
    if (colon <= start || colon >= end) {
      throw new Http1Error("protocol", `a malformed header line in the answer`);
    }
    let from = colon + 1;
    let to = end;
    while (from < to && isSpace(head.charCodeAt(from))) from++;
    while (to > from && isSpace(head.charCodeAt(to - 1))) to--;
    const name = head.slice(start, colon);
    const value = head.slice(from, to);
    headers.push([name, value]);
    at = next;
    // Only names of these lengths can be one of the three: the others are not lower-cased.
    const size = colon - start;
    if (size !== 14 && size !== 17 && size !== 10) continue;
    if (sameLower(name, "content-length")) {
      if (!/^\d+$/.test(value) || (length !== undefined && length !== Number(value))) {
        throw new Http1Error("protocol", `an invalid Content-Length in the answer: ${value}`);
      }
      length = Number(value);
    } else if (sameLower(name, "transfer-encoding")) {
      chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
    } else if (sameLower(name, "connection")) {
      const tokens = value.toLowerCase().split(",").map((t) => t.trim());
      if (tokens.includes("close")) close = true;
      else if (tokens.includes("keep-alive")) close = http10 ? false : close;
    }
  }
  return { status, statusText, headers, length, chunked, close };
}

/**
 * The answer when it is whole in the connection's buffer already (its head final, its body framed by a
 * Content-Length or absent: the common small answer), taken synchronously; else undefined and nothing taken
 * (readResponse reads it).
 */
function takeBuffered(
  c: Connection,
  method: string,
  maxBody: number,
  budget: BodyBudgetLike | undefined,
): Http1Response | undefined {
  if (budget !== undefined) return undefined;
  const found = indexOfCrlf2(c.buf, c.start, c.end);
  if (found < 0) return undefined;
  const head = parseHead(latin1(c.buf.subarray(c.start, found)));
  const status = head.status;
  if (status >= 100 && status < 200) return undefined; // interim, or 101 (readResponse says so)
  const bodyAt = found + 4;
  let body: Uint8Array;
  let bodySize: number;
  if (answerHasNoBody(method, status)) {
    body = new Uint8Array(0);
    bodySize = 0;
  } else if (head.length !== undefined && !head.chunked && c.end - bodyAt >= head.length) {
    bodySize = head.length;
    body = c.buf.slice(bodyAt, bodyAt + Math.min(bodySize, maxBody));
  } else return undefined;
  c.start = bodyAt + bodySize;
  c.keep = !head.close;
  return {
    status,
    statusText: head.statusText,
    headers: head.headers,
    body,
    bodySize,
    truncated: bodySize > body.length,
  };
}

/** Reads the answer (sets the connection's `keep`). */
async function readResponse(
  c: Connection,
  method: string,
  maxBody: number,
  budget?: BodyBudgetLike,
): Promise<Http1Response> {
  let head: AnswerHead;
  while (true) {
    head = parseHead(await c.readHead());
    if (head.status === 101) throw new Http1Error("protocol", "the app switched protocols");
    if (head.status >= 100 && head.status < 200) continue; // interim (100 Continue, 103): the real answer follows
    break;
  }
  const { status, statusText, headers, length, chunked } = head;
  let close = head.close;
  const declared = length !== undefined && !chunked && !answerHasNoBody(method, status);
  const body = new AnswerBody(maxBody, budget, declared ? length : undefined);
  const sink = (bytes: Uint8Array) => body.add(bytes); // a view of the connection's buffer: copied
  if (declared && c.end - c.start >= length!) {
    // The whole body is in the buffer already (a small answer): one copy, no reads.
    sink(c.buf.subarray(c.start, c.start + length!));
    c.start += length!;
    c.keep = !close;
    return { status, statusText, headers, ...body.finish() };
  }
  if (answerHasNoBody(method, status)) {
    // no body
  } else if (chunked) {
    while (true) {
      const line = await c.readLine();
      const hex = line.split(";")[0]!.trim();
      if (!/^[0-9a-fA-F]+$/.test(hex)) {
        throw new Http1Error("protocol", `an invalid chunk size in the answer`);
      }
      const n = parseInt(hex, 16);
      if (n === 0) {
        while ((await c.readLine()) !== ""); // trailers
        break;
      }
      await c.readBody(n, sink);
      if ((await c.readLine()) !== "") throw new Http1Error("protocol", "a chunk without its CRLF");
    }
  } else if (length !== undefined) {
    await c.readBody(length, sink);
  } else {
    await c.readBody(Infinity, sink);
    close = true;
  }
  const response: Http1Response = { status, statusText, headers, ...body.finish() };
  c.keep = !close;
  return response;
}

/*
 * Connecting to an app on this machine by the name `localhost`: Deno connects to the first address it
 * resolves and no other (denoland/deno#25661, no Happy Eyeballs), so an app bound to `::1` only (Node's
 * `listen(port, "localhost")` where `localhost` resolves to `::1` first, as on macOS) is refused when
 * `localhost` resolves to `127.0.0.1`, and the reverse: hooktap would call a running app down. A refused
 * `localhost` is tried at `127.0.0.1`, then at `::1`.
 */

/** The loopback addresses a refused `localhost` is tried at, in order. */
export const LOOPBACKS = ["127.0.0.1", "::1"] as const;

/** Injected for tests: the runtime's connect. */
export type ConnectFn = (options: Deno.ConnectOptions) => Promise<Deno.TcpConn>;

/**
 * `Deno.connect` to `hostname:port`; for `localhost`, refused, each loopback address in turn.
 * @throws the first attempt's error when every address refuses (or any other error at once).
 */
export async function connectTcp(
  hostname: string,
  port: number,
  connect: ConnectFn = (options) => Deno.connect(options),
): Promise<Deno.TcpConn> {
  try {
    return await connect({ hostname, port });
  } catch (error) {
    if (hostname.toLowerCase() !== "localhost" || !(error instanceof Deno.errors.ConnectionRefused)) {
      throw error;
    }
    for (const address of LOOPBACKS) {
      try {
        return await connect({ hostname: address, port });
      } catch { /* this family refuses too (or is not there): the next */ }
    }
    throw error;
  }
}
