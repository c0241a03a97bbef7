/**
 * `.hooktap/control.sock`: how `prune` and `rm` reach a running `hooktap
 * dev`, which holds the writer lock. They must not become a second writer,
 * so they send their request here and `dev` does the compaction itself with
 * its writer paused. `trigger` tells it here which deliveries it is about to
 * send (a `{"type":"trigger-note"}` line), so the stored event shows the fault
 * without the app seeing a marker. One JSON line each way per connection. The
 * socket is owned by this module: `src/dev/session.ts` starts it, nothing else listens.
 * @module
 */
import { join } from "node:path";
import { describeError, StoreError } from "../../errors.ts";
import type { StorePaths } from "../paths.ts";
import type { CompactPlan, CompactResult } from "./compact.ts";

/** Path of the control socket. */
export function controlPath(paths: StorePaths): string {
  return join(paths.dir, "control.sock");
}

/** What a compaction answers over the socket (`latest` left out). */
export type ControlAnswer =
  | { ok: true; result: Omit<CompactResult, "latest"> }
  | { ok: false; error: string };

const encoder = new TextEncoder();
const MAX_REQUEST = 1 << 20;

async function _readLine(conn: Deno.Conn): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const buf = new Uint8Array(64 * 1024);
  while (size < MAX_REQUEST) {
    const n = await conn.read(buf);
    if (n === null) break;
    parts.push(buf.slice(0, n));
    size += n;
    if (buf.subarray(0, n).includes(0x0a)) break;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return new TextDecoder().decode(all).split("\n")[0]!;
}

async function _writeAll(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = encoder.encode(text);
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

/** A listening control socket. */
export interface ControlServer {
  close(): Promise<void>;
}

/**
 * Listens on `.hooktap/control.sock` (a stale one from a killed `dev` is
 * replaced) and runs each compaction request with `compact`, one at a time.
 * @returns `undefined` when the platform or the permissions have no Unix sockets (prune/rm then say so).
 */
export async function startControl(
  paths: StorePaths,
  compact: (plan: CompactPlan) => Promise<CompactResult>,
  onNote?: (note: unknown) => void,
): Promise<ControlServer | undefined> {
  const path = controlPath(paths);
  try {
    const info = await Deno.lstat(path).catch(() => undefined);
    if (info?.isSocket) await Deno.remove(path);
  } catch { /* listen reports it */ }
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ transport: "unix", path });
  } catch {
    return undefined;
  }
  let queue: Promise<unknown> = Promise.resolve();
  const serve = async (conn: Deno.Conn) => {
    try {
      const message = JSON.parse(await _readLine(conn)) as CompactPlan | {
        type: "trigger-note";
        note: unknown;
      };
      if ("type" in message && message.type === "trigger-note") {
        onNote?.(message.note);
        await _writeAll(conn, JSON.stringify({ ok: onNote !== undefined }) + "\n");
        return;
      }
      const plan = message as CompactPlan;
      const run = queue.then(() => compact(plan));
      queue = run.catch(() => {});
      let answer: ControlAnswer;
      try {
        const { latest: _, ...result } = await run;
        answer = { ok: true, result };
      } catch (error) {
        answer = { ok: false, error: describeError(error) };
      }
      await _writeAll(conn, JSON.stringify(answer) + "\n");
    } catch {
      // A client that went away or sent garbage: nothing to answer.
    } finally {
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) void serve(conn);
  })().catch(() => {});
  return {
    async close() {
      try {
        listener.close();
      } catch { /* closed */ }
      await accepting;
      await queue;
      await Deno.remove(path).catch(() => {});
    },
  };
}

/**
 * Sends `plan` to the running `dev` and waits for its answer.
 * @throws {StoreError} when the socket cannot be reached or the compaction failed.
 */
export async function requestCompaction(
  paths: StorePaths,
  plan: CompactPlan,
): Promise<Omit<CompactResult, "latest">> {
  let conn: Deno.Conn;
  try {
    conn = await Deno.connect({ transport: "unix", path: controlPath(paths) });
  } catch (error) {
    throw new StoreError(
      `hooktap dev is running here but its control socket ${controlPath(paths)} cannot be reached ` +
        `(${
          describeError(error)
        }). Stop it (Ctrl-C) and run this again, or restart it with this hooktap version.`,
      { cause: error },
    );
  }
  try {
    await _writeAll(conn, JSON.stringify(plan) + "\n");
    const line = await _readLine(conn);
    if (line === "") throw new StoreError("hooktap dev closed the control connection without an answer.");
    const answer = JSON.parse(line) as ControlAnswer;
    if (!answer.ok) throw new StoreError(`hooktap dev could not compact the log: ${answer.error}`);
    return answer.result;
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

/**
 * Sends a note (a `trigger` delivery about to be sent) to the running `dev`.
 * @throws {StoreError} when the socket cannot be reached or `dev` does not take notes.
 */
export async function sendControlNote(paths: StorePaths, note: unknown): Promise<void> {
  let conn: Deno.Conn;
  try {
    conn = await Deno.connect({ transport: "unix", path: controlPath(paths) });
  } catch (error) {
    throw new StoreError(`its control socket cannot be reached (${describeError(error)})`, { cause: error });
  }
  try {
    await _writeAll(conn, JSON.stringify({ type: "trigger-note", note }) + "\n");
    const line = await _readLine(conn);
    if (!(JSON.parse(line || "{}") as { ok?: boolean }).ok) {
      throw new StoreError("this hooktap dev does not take trigger notes (restart it with this version)");
    }
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}
