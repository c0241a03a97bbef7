/**
 * The port the receiver writes through: the store implements it
 * (src/store/write/writer.ts), the receiver and the hub client write to it.
 * Defined here, below both, so neither imports the other. Interface only.
 * @module
 */
import type { CapturedEvent } from "./record.ts";

/** Where the receiver puts events; `append` resolves once the event is durable. */
export interface EventSink {
  append(event: CapturedEvent): Promise<void>;
}
