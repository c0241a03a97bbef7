/**
 * The filter language's shapes, types only: {@linkcode EventFilter} and
 * {@linkcode DeliveryState}. A leaf (it imports the record's types), so the
 * config's types (src/ports.ts's `ResolvedWhen`) reach them without the
 * filter's code; src/query/filter.ts compiles them.
 * @module
 */
import type { VerdictStatus } from "../event/record.ts";

/** Filters of `hooktap logs`, `export`, `replay` and the inspector; every field that is set must match. */
export interface EventFilter {
  /** Endpoint name, exact. */
  endpoint?: string;
  /** HTTP method, any case. */
  method?: string;
  /** Only events received at or after this time. */
  since?: Date;
  /** Only events received before this time. */
  until?: Date;
  /**
   * Text in the body (base64 bodies: in the bytes they stand for), a header
   * value, or the path and query. Smart case: any case unless it holds an
   * upper-case letter.
   */
  grep?: string;
  /** `a.b=v`, `a.b!=v` or `a.b` (present) over the body parsed as JSON; all must hold. */
  where?: string[];
  /** `Name=value` (name any case, any of its repeats) or `Name` (present); all must hold. */
  header?: string[];
  /** Sender (`github`, `stripe`, ...), any case. */
  provider?: string;
  /** Event type: exact, or a prefix up to a `.`, `/` or space (`issues` matches `issues.opened`). */
  type?: string;
  /** Request path: exact, or a prefix when it ends in `*` (`/hooks/*` matches `/hooks/github`). */
  path?: string;
  /** Signature verdict; an event without one counts as `unsigned`. */
  verdict?: VerdictStatus;
  /** Delivery state (see {@linkcode DeliveryState}); its test needs `deliveryOf` (src/query/filter.ts). */
  delivery?: DeliveryState;
}

/**
 * Where an event's delivery stands: the outcome of its latest attempt
 * (`delivered`, `retrying`, `failed`), `pending` when it was stored with
 * forwarding on and no attempt is recorded yet, `none` when it was never sent.
 */
export type DeliveryState = "none" | "pending" | "delivered" | "retrying" | "failed";
