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

async function nextAttempt(paths: StorePaths, event: string, target: string): Promise<number> {
  const records = await readDeliveries(forwardPaths(paths).deliveries);
  return records.filter((d) => d.event === event && d.target === target && d.source === "replay").length + 1;
}

/** Appends the record of one `hooktap replay` send. */
export async function recordReplay(paths: StorePaths, send: ReplaySend): Promise<void> {
  const attempt = await nextAttempt(paths, send.event.id, send.url);
  const log = await openDeliveriesLog(forwardPaths(paths).deliveries);
  try {
    const ok = send.status !== undefined && send.status >= 200 && send.status < 300;
    const record: DeliveryRecord = {
      v: DELIVERY_VERSION,
      id: log.newId(send.startedAt),
      event: send.event.id,
      endpoint: send.event.endpoint,
      source: "replay",
      target: send.url,
      method: send.method,
      attempt,
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
  } finally {
    await log.close();
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
  const all = await readDeliveries(forwardPaths(paths).deliveries);
  const log = await openDeliveriesLog(forwardPaths(paths).deliveries);
  const records: DeliveryRecord[] = [];
  try {
    for (const event of events) {
      if (options.signal?.aborted) break;
      const url = new URL(to);
      if (url.search === "" && !to.includes("?") && event.query !== "") url.search = `?${event.query}`;
      const attempt = all.filter((d) =>
        d.event === event.id && d.source === "replay" && d.target === url.href
      )
        .length + 1;
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
