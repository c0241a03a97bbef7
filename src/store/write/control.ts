/**
 * `.hooktap/control.sock`: how `prune` and `rm` reach a running `hooktap
 * dev`, which holds the writer lock. They must not become a second writer,
 * so they send their request here and `dev` does the compaction itself with
 * its writer paused. `trigger` tells it here which deliveries it is about to
 * send (a `{"type":"trigger-note"}` line), so the stored event shows the fault
 * without the app seeing a marker. One JSON line from the client per
 * connection; `dev` answers a compaction with `{"working":true}` lines (one
 * at once, then every {@linkcode HEARTBEAT_MS}) until its answer line. The
 * socket is owned by this module: `openStoreForWriting` (open.ts) starts it for `dev`, nothing else listens.
 *
 * An accept error (`EMFILE`: out of descriptors after a flood) would end
 * the listener for good; it is closed and bound again, backing off, as the
 * receiver does (src/server/). Every client waits a bounded time: to connect
 * ({@linkcode CONNECT_TIMEOUT_MS}) and between two lines of the answer
 * ({@linkcode ANSWER_TIMEOUT_MS}), and stops waiting when its `signal` aborts
 * (Ctrl-C, SIGTERM).
 * @module
 */
import { wakeableSleep } from "../../timer.ts";
import { describeError, StoreError } from "../../errors.ts";
import type { StorePaths } from "../paths.ts";
import type { CompactPlan, CompactResult } from "./compact.ts";
import { suggestCommand } from "../../text/command_line.ts";

/** Path of the control socket. */
export function controlPath(paths: StorePaths): string {
  return paths.control;
}

/** What a compaction answers over the socket (`latest` left out). */
export type ControlAnswer =
  | { ok: true; result: Omit<CompactResult, "latest"> }
  | { ok: false; error: string };

const encoder = new TextEncoder();
const MAX_REQUEST = 1 << 20;

/** How long a client waits for the socket to take its connection. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** How long a client waits for the next line of an answer (`dev` sends one every {@linkcode HEARTBEAT_MS}). */
export const ANSWER_TIMEOUT_MS = 15_000;
/** How often `dev` says it is still compacting. */
export const HEARTBEAT_MS = 2_000;
/** How long `dev` waits for a client's request line. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Why a wait ended early. */
class Stop extends Error {}

/** `promise`, or a {@link Stop} after `ms` or when `signal` aborts. */
function bounded<T>(promise: Promise<T>, ms: number, why: string, signal?: AbortSignal): Promise<T> {
  // AbortSignal.timeout, not setTimeout: a process's first setTimeout loads Deno's Node timers (~5 ms), which
  // every `trigger` to a running dev paid here (its side channel). Its timer holds the process only while a
  // listener waits on it, and the listener goes once the race is over.
  const timeout = AbortSignal.timeout(ms);
  let onAbort = () => {};
  const stop = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Stop(signal?.aborted ? "interrupted" : why));
    if (signal?.aborted) return onAbort();
    timeout.addEventListener("abort", onAbort, { once: true });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, stop]).finally(() => {
    timeout.removeEventListener("abort", onAbort);
    signal?.removeEventListener("abort", onAbort);
  });
}

/** Reads a connection line by line (at most {@linkcode MAX_REQUEST} bytes a line). */
class LineReader {
  #buf = new Uint8Array(0);
  #done = false;
  constructor(private readonly conn: Deno.Conn) {}
  /** The next line without its newline; `""` at the end of the stream. */
  async next(): Promise<string> {
    const chunk = new Uint8Array(64 * 1024);
    while (true) {
      const nl = this.#buf.indexOf(0x0a);
      if (nl !== -1 || this.#done || this.#buf.length >= MAX_REQUEST) {
        const end = nl === -1 ? this.#buf.length : nl;
        const line = new TextDecoder().decode(this.#buf.subarray(0, end));
        this.#buf = this.#buf.slice(nl === -1 ? end : end + 1);
        return line;
      }
      const n = await this.conn.read(chunk);
      if (n === null) this.#done = true;
      else {
        const all = new Uint8Array(this.#buf.length + n);
        all.set(this.#buf);
        all.set(chunk.subarray(0, n), this.#buf.length);
        this.#buf = all;
      }
    }
  }
}

async function _writeAll(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = encoder.encode(text);
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

function _close(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* closed */ }
}

/** A listening control socket. */
export interface ControlServer {
  close(): Promise<void>;
}

/** The sockets this process bound, by path (inode and times: an inode is soon reused): only its own is removed. */
const boundHere = new Map<string, string>();

const socketKey = (info: Deno.FileInfo) =>
  `${info.dev}:${info.ino}:${info.mtime?.getTime()}:${info.birthtime?.getTime()}:${info.ctime?.getTime()}`;

/** Binds the socket at `path`, replacing a stale one (never anything that is not a socket). */
async function _bind(path: string): Promise<Deno.Listener> {
  try {
    const info = await Deno.lstat(path).catch(() => undefined);
    if (info?.isSocket) await Deno.remove(path);
  } catch { /* listen reports it */ }
  const listener = Deno.listen({ transport: "unix", path });
  const info = await Deno.lstat(path).catch(() => undefined);
  if (info !== undefined) boundHere.set(path, socketKey(info));
  return listener;
}

/**
 * Closes the listener (`close`), removing the socket this process bound at `path` but not one another
 * `hooktap dev` bound there since (it took the data directory over after its lock or the whole directory was
 * deleted under this one). Deno removes whatever is at the path when a Unix listener closes, so such a socket
 * is set aside meanwhile (its clients retry a missing socket for a moment).
 */
async function _unbinding(path: string, close: () => Promise<void>): Promise<void> {
  const mine = boundHere.get(path);
  boundHere.delete(path);
  const there = await Deno.lstat(path).catch(() => undefined);
  if (there === undefined || mine === undefined || socketKey(there) === mine) {
    await close();
    await Deno.remove(path).catch(() => {}); // where closing leaves it
    return;
  }
  const aside = `${path}.${crypto.randomUUID()}.aside`;
  const moved = await Deno.rename(path, aside).then(() => true, () => false);
  await close();
  if (moved) await Deno.rename(aside, path).catch(() => {});
}

/**
 * Listens on `.hooktap/control.sock` (a stale one from a killed `dev` is
 * replaced) and runs each compaction request with `compact`, one at a time.
 * When accepting fails (out of descriptors), it listens again, backing off.
 * @returns `undefined` when the platform or the permissions have no Unix sockets (prune/rm then say so).
 */
export async function startControl(
  paths: StorePaths,
  compact: (plan: CompactPlan) => Promise<CompactResult>,
  onNote?: (note: unknown) => void,
  onNotice?: (message: string) => void,
): Promise<ControlServer | undefined> {
  const path = controlPath(paths);
  let listener: Deno.Listener | undefined;
  try {
    listener = await _bind(path);
  } catch {
    return undefined;
  }
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  const serve = async (conn: Deno.Conn) => {
    try {
      const line = await bounded(new LineReader(conn).next(), REQUEST_TIMEOUT_MS, "no request");
      const message = JSON.parse(line) as CompactPlan | { type: "trigger-note"; note: unknown };
      if ("type" in message && message.type === "trigger-note") {
        onNote?.(message.note);
        await _writeAll(conn, JSON.stringify({ ok: onNote !== undefined }) + "\n");
        return;
      }
      const plan = message as CompactPlan;
      const run = queue.then(() => compact(plan));
      queue = run.catch(() => {});
      let writing: Promise<void> = Promise.resolve(); // one write at a time: lines never interleave
      const beat = () => (writing = writing.then(() =>
        _writeAll(conn, '{"working":true}\n')
      ).catch(() => {}));
      beat();
      const heartbeat = setInterval(beat, HEARTBEAT_MS);
      let answer: ControlAnswer;
      try {
        const { latest: _, ...result } = await run;
        answer = { ok: true, result };
      } catch (error) {
        answer = { ok: false, error: describeError(error) };
      } finally {
        clearInterval(heartbeat);
      }
      await writing;
      await _writeAll(conn, JSON.stringify(answer) + "\n");
    } catch {
      // A client that went away, sent garbage or nothing: nothing to answer.
    } finally {
      _close(conn);
    }
  };
  const { sleep, wake } = wakeableSleep();
  const accepting = (async () => {
    let backoff = 50;
    while (!closed) {
      if (listener === undefined) {
        try {
          listener = await _bind(path);
        } catch {
          await sleep(backoff); // still no descriptor: wait for connections to close
          backoff = Math.min(backoff * 2, 1_000);
          continue;
        }
      }
      try {
        const conn = await listener.accept();
        backoff = 50;
        void serve(conn);
      } catch (error) {
        if (closed) break;
        // Out of descriptors (EMFILE), or the listener died: listen again once descriptors are back.
        if (backoff === 50) {
          onNotice?.(`The control socket stopped accepting (${describeError(error)}); listening again.`);
        }
        try {
          listener.close();
        } catch { /* closed */ }
        listener = undefined;
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 1_000);
      }
    }
  })();
  return {
    async close() {
      closed = true;
      // Deno unlinks the path once the listener is gone, which is after the accept in flight returns.
      await _unbinding(path, async () => {
        try {
          listener?.close();
        } catch { /* closed */ }
        wake();
        await accepting;
      });
      await queue;
    },
  };
}

/** Options of the control socket's clients. */
export interface ControlClientOptions {
  /** Stops waiting when it aborts (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** @default CONNECT_TIMEOUT_MS */
  connectTimeoutMs?: number;
  /** @default ANSWER_TIMEOUT_MS */
  answerTimeoutMs?: number;
}

/** Connects to the control socket within the connect timeout. */
async function _connect(paths: StorePaths, options: ControlClientOptions): Promise<Deno.Conn> {
  const path = controlPath(paths);
  const ms = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const deadline = Date.now() + ms;
  while (true) {
    const pending = Deno.connect({ transport: "unix", path });
    try {
      return await bounded(pending, Math.max(1, deadline - Date.now()), "connect", options.signal);
    } catch (error) {
      if (error instanceof Stop) {
        pending.then(_close, () => {});
        throw error;
      }
      // Missing or refusing for a moment (dev listening again after running out of descriptors): retry.
      const transient = error instanceof Deno.errors.NotFound ||
        error instanceof Deno.errors.ConnectionRefused;
      if (!transient || Date.now() + 100 > deadline) throw error;
      await bounded(new Promise((r) => setTimeout(r, 100)), 200, "connect", options.signal);
    }
  }
}

function _unreachable(paths: StorePaths, error: unknown, ms: number): StoreError {
  const why = error instanceof Stop
    ? error.message === "interrupted" ? "interrupted" : `no connection within ${ms / 1000} s`
    : describeError(error);
  return new StoreError(
    `hooktap dev is running here but its control socket ${controlPath(paths)} cannot be reached ` +
      `(${why}). Stop it (Ctrl-C) and run this again, or restart it with this hooktap version.`,
    { cause: error },
  );
}

/**
 * Sends `plan` to the running `dev` and waits for its answer (a bounded time between its lines).
 * @throws {StoreError} when the socket cannot be reached, `dev` does not answer in time, or the compaction failed.
 */
export async function requestCompaction(
  paths: StorePaths,
  plan: CompactPlan,
  options: ControlClientOptions = {},
): Promise<Omit<CompactResult, "latest">> {
  let conn: Deno.Conn;
  try {
    conn = await _connect(paths, options);
  } catch (error) {
    throw _unreachable(paths, error, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
  }
  const wait = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
  try {
    await bounded(_writeAll(conn, JSON.stringify(plan) + "\n"), wait, "send", options.signal);
    const reader = new LineReader(conn);
    let line = '{"working":true}';
    while (line === '{"working":true}') line = await bounded(reader.next(), wait, "answer", options.signal);
    if (line === "") throw new StoreError("hooktap dev closed the control connection without an answer.");
    const answer = JSON.parse(line) as ControlAnswer;
    if (!answer.ok) throw new StoreError(`hooktap dev could not compact the log: ${answer.error}`);
    return answer.result;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    if (error.message === "interrupted") {
      throw new StoreError(
        "Stopped waiting for hooktap dev's answer (interrupted). The compaction may still finish in dev: " +
          `run \`${suggestCommand(["logs"])}\` to see what is stored.`,
        { cause: error },
      );
    }
    throw new StoreError(
      `hooktap dev took the request on its control socket ${controlPath(paths)} but sent nothing for ` +
        `${wait / 1000} s, so hooktap stopped waiting (the log may or may not be compacted: ` +
        `\`${
          suggestCommand(["logs"])
        }\` shows what is stored). Restart hooktap dev (Ctrl-C, then start it again) ` +
        "and run this again.",
      { cause: error },
    );
  } finally {
    _close(conn);
  }
}

/**
 * Sends a note (a `trigger` delivery about to be sent) to the running `dev`, waiting a bounded time.
 * @throws {StoreError} when the socket cannot be reached, does not answer in time, or `dev` does not take notes.
 */
export async function sendControlNote(
  paths: StorePaths,
  note: unknown,
  options: ControlClientOptions = {},
): Promise<void> {
  let conn: Deno.Conn;
  try {
    conn = await _connect(paths, options);
  } catch (error) {
    const why = error instanceof Stop
      ? `no connection within ${(options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS) / 1000} s`
      : describeError(error);
    throw new StoreError(`its control socket cannot be reached (${why})`, { cause: error });
  }
  try {
    const wait = options.answerTimeoutMs ?? CONNECT_TIMEOUT_MS;
    await bounded(_writeAll(conn, JSON.stringify({ type: "trigger-note", note }) + "\n"), wait, "send");
    let line: string;
    try {
      line = await bounded(new LineReader(conn).next(), wait, "answer", options.signal);
    } catch (error) {
      if (!(error instanceof Stop)) throw error;
      throw new StoreError(`its control socket sent no answer within ${wait / 1000} s`, { cause: error });
    }
    if (!(JSON.parse(line || "{}") as { ok?: boolean }).ok) {
      throw new StoreError("this hooktap dev does not take trigger notes (restart it with this version)");
    }
  } finally {
    _close(conn);
  }
}
