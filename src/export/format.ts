/**
 * What an export format is: a writer that gets the matching events in
 * arrival order and returns the text (or bytes) to write for each, plus a
 * head and a tail. Formats register in `registry.ts`; the `export` command
 * knows none of them by name.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import type { DeliveryRecord } from "../event/delivery.ts";

/** Options every format gets. */
export interface ExportOptions {
  /** hooktap's version, for documents that name their creator (HAR). */
  version: string;
  /** Send to this URL instead of the original one (curl). */
  to?: string;
}

/** One export in progress. */
export interface ExportWriter {
  /** Written before the first event. */
  head?(): string;
  /**
   * What one event becomes; `line` is its exact stored line (without the newline); `relayed`, for a format
   * with {@linkcode ExportFormat.answers}: the event's relay attempt, whose answer its sender got.
   */
  event(event: CapturedEvent, line: string, relayed?: DeliveryRecord): string | Uint8Array;
  /** Written after the last event. */
  tail?(): string;
}

/** A format of `hooktap export --format NAME`. */
export interface ExportFormat {
  readonly name: string;
  /** One line for help. */
  readonly description: string;
  /** Writes bytes that must not go to a terminal, and only one event's worth. */
  readonly raw?: boolean;
  /** Honours {@linkcode ExportOptions.to} (the command refuses `--to` for a format without it). */
  readonly sendsTo?: boolean;
  /** Shows what the sender was answered: wants a relayed event's relay attempt (`relayed`). */
  readonly answers?: boolean;
  /** Starts an export. */
  create(options: ExportOptions): ExportWriter;
}
