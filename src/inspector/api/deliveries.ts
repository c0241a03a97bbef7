/**
 * What the inspector knows of deliveries (`.hooktap/deliveries.jsonl`,
 * written by forwarding and replay): the latest outcome of each event, read
 * incrementally (only the bytes appended since the last look), and every
 * attempt of one event for its detail view. Works, showing nothing, while
 * the file does not exist.
 * @module
 */
import { join } from "node:path";
import type { DeliveryRecord } from "../../event/delivery.ts";
import { parseDeliveryLine } from "../../send/deliveries_read.ts";
import type { CapturedEvent } from "../../event/record.ts";
import { type Line, readLine, scanForward } from "../../store/read/lines.ts";

/** Delivery records are small (a response body is capped at 64 KiB): read whole in the scan. */
const WHOLE = { headBytes: 256 * 1024, background: true };

async function _bytes(file: Deno.FsFile, line: Line): Promise<Uint8Array> {
  return line.head.length === line.length ? line.head : await readLine(file, line);
}
import type { StorePaths } from "../../store/paths.ts";
import type { DeliveryStatus } from "./_filter.ts";

const decoder = new TextDecoder();

/** Path of the delivery log beside the event log. */
export function deliveriesPath(paths: StorePaths): string {
  return join(paths.dir, "deliveries.jsonl");
}

function _parse(bytes: Uint8Array): DeliveryRecord | undefined {
  return parseDeliveryLine(decoder.decode(bytes)); // v1 and v2 lines
}

async function _size(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return 0;
  }
}

/** The latest delivery outcome of each event. */
export interface DeliveryIndex {
  /** Reads what was appended since the last call. */
  refresh(): Promise<void>;
  /** The event's delivery status. */
  statusOf(event: CapturedEvent): DeliveryStatus;
  /** Every attempt for one event, in order. */
  attemptsOf(id: string): Promise<DeliveryRecord[]>;
}

/** Opens the delivery index of a store (nothing is read until `refresh`). */
export function deliveryIndex(paths: StorePaths): DeliveryIndex {
  const path = deliveriesPath(paths);
  const latest = new Map<string, DeliveryRecord["outcome"]>();
  let pos = 0;
  let busy: Promise<void> | undefined;
  const read = async () => {
    const size = await _size(path);
    if (size < pos) {
      latest.clear();
      pos = 0;
    }
    if (size === pos) return;
    using file = await Deno.open(path, { read: true });
    for await (const line of scanForward(file, pos, size, WHOLE)) {
      if (line.torn) break;
      pos = line.start + line.length + 1;
      const d = _parse(await _bytes(file, line));
      if (d !== undefined) latest.set(d.event, d.outcome);
    }
  };
  return {
    refresh() {
      busy ??= read().catch(() => {}).finally(() => (busy = undefined));
      return busy;
    },
    statusOf(event) {
      return latest.get(event.id) ?? (event.forward ? "pending" : "none");
    },
    async attemptsOf(id) {
      const size = await _size(path);
      if (size === 0) return [];
      const needle = `"event":${JSON.stringify(id)}`;
      const found: DeliveryRecord[] = [];
      using file = await Deno.open(path, { read: true });
      for await (const line of scanForward(file, 0, size, WHOLE)) {
        if (line.torn) break;
        const bytes = await _bytes(file, line);
        const text = decoder.decode(bytes);
        if (!text.includes(needle)) continue;
        const d = _parse(bytes);
        if (d?.event === id) found.push(d);
      }
      return found;
    },
  };
}
