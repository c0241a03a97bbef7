/**
 * `hooktap replay` and the deliveries log: the record of a replay send, and
 * sending every undelivered event again (`replay --undelivered --to URL`).
 * @module
 */
import type { DeliveryRecord } from "../event/delivery.ts";
import { DELIVERY_VERSION } from "../event/delivery.ts";
import type { CapturedEvent } from "../event/record.ts";
import type { StorePaths } from "../store/paths.ts";
import { deliverOnce } from "./deliver.ts";
import { openDeliveriesLog } from "./deliveries_log.ts";
import { readDeliveries } from "./deliveries_read.ts";
import { forwardPaths } from "./paths.ts";
import { deliveryUrl } from "./target.ts";
import { findUndelivered } from "./undelivered.ts";

/** What a replay send came to, in the words of a delivery record. */
export interface ReplaySend {
  event: CapturedEvent;
  url: string;
  method: string;
  startedAt: Date;
  durationMs: number;
  status?: number;
  statusText?: string;
  body?: string;
  truncated?: boolean;
  error?: string;
}

/** Replay attempts already recorded, by event and target: the next send to a target is numbered after them. */
class ReplayAttempts {
  readonly #counts = new Map<string, number>();
  constructor(records: readonly DeliveryRecord[]) {
    for (const d of records) if (d.source === "replay") this.next(d.event, d.target);
  }
  /** Counts one more send of `event` to `target` and returns its number. */
  next(event: string, target: string): number {
    const key = `${event} ${target}`;
    const n = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, n);
    return n;
  }
}

async function _attempts(paths: StorePaths): Promise<ReplayAttempts> {
  return new ReplayAttempts(await readDeliveries(forwardPaths(paths).deliveries));
}

/** Records replay sends: the deliveries log is read once and opened once, however many sends there are. */
export interface ReplayRecorder {
  record(send: ReplaySend): Promise<void>;
  close(): Promise<void>;
}

/** Opens a {@linkcode ReplayRecorder} (bulk replay records every send through one). */
export async function openReplayRecorder(paths: StorePaths): Promise<ReplayRecorder> {
  const attempts = await _attempts(paths);
  const log = await openDeliveriesLog(forwardPaths(paths).deliveries);
  return {
    async record(send) {
      const ok = send.status !== undefined && send.status >= 200 && send.status < 300;
      const record: DeliveryRecord = {
        v: DELIVERY_VERSION,
        id: log.newId(send.startedAt),
        event: send.event.id,
        endpoint: send.event.endpoint,
        source: "replay",
        target: send.url,
        method: send.method,
        attempt: attempts.next(send.event.id, send.url),
        startedAt: send.startedAt.toISOString(),
        durationMs: send.durationMs,
        outcome: ok ? "delivered" : "failed",
      };
      if (send.status !== undefined) {
        record.status = send.status;
        record.statusText = send.statusText ?? "";
        record.body = send.body ?? "";
        record.bodyEncoding = "utf8";
        if (send.truncated) record.truncated = true;
      }
      if (send.error !== undefined) record.error = send.error;
      await log.append(record);
    },
    close: () => log.close(),
  };
}

/** Appends the record of one `hooktap replay` send. */
export async function recordReplay(paths: StorePaths, send: ReplaySend): Promise<void> {
  const recorder = await openReplayRecorder(paths);
  try {
    await recorder.record(send);
  } finally {
    await recorder.close();
  }
}

/** Options of {@linkcode replayUndelivered}. */
export interface ReplayUndeliveredOptions {
  timeoutMs?: number;
  insecure?: boolean;
  /** Called after each send is recorded. */
  onDelivery?: (record: DeliveryRecord) => void;
  signal?: AbortSignal;
}

/**
 * Sends every forwarded event that has no successful delivery to `to`, oldest
 * first, one at a time, recording each send. Resolves to the records.
 */
export async function replayUndelivered(
  paths: StorePaths,
  to: string,
  options: ReplayUndeliveredOptions = {},
): Promise<DeliveryRecord[]> {
  const { pending, failed } = await findUndelivered(paths);
  const events = [...pending, ...failed].sort((a, b) => (a.id < b.id ? -1 : 1));
  if (events.length === 0) return [];
  const attempts = await _attempts(paths);
  const log = await openDeliveriesLog(forwardPaths(paths).deliveries);
  const records: DeliveryRecord[] = [];
  try {
    for (const event of events) {
      if (options.signal?.aborted) break;
      const attempt = attempts.next(event.id, deliveryUrl(event, to).href);
      const { record } = await deliverOnce(event, to, {
        id: log.newId(new Date()),
        source: "replay",
        attempt,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.insecure !== undefined ? { insecure: options.insecure } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      await log.append(record);
      records.push(record);
      options.onDelivery?.(record);
    }
  } finally {
    await log.close();
  }
  return records;
}
