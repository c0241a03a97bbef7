/**
 * The shapes of the trigger catalog: what a provider's catalog module
 * exports (its events, sequences, retry schedule and a builder), and the
 * draft a builder returns before overrides and signing. Pure.
 * @module
 */

/** A body before it is encoded: JSON, a form, or bytes (`--body-file`). */
export type DraftBody =
  | {
    kind: "json";
    value: unknown; /** Spaces of indentation the provider uses. @default 0 */
    indent?: number;
  }
  | { kind: "form"; value: [string, string][] }
  | { kind: "raw"; bytes: Uint8Array };

/** A delivery as its provider would make it, not yet signed. */
export interface Draft {
  /** @default "POST" */
  method?: string;
  /**
   * Headers in the order and case the provider sends them. A signature header
   * given with an empty value marks where the signature goes.
   */
  headers: [string, string][];
  body: DraftBody;
  /** The header that carries the delivery's id (for faults and `dev`'s side channel). */
  deliveryHeader?: string;
  /** A query string the provider adds to the URL (Meta's `hub.mode=subscribe&...`), without `?`. */
  query?: string;
  /** The provider sends this request unsigned (Meta's verification GET): trigger signs it not. */
  unsigned?: true;
}

/** What a builder gets: the clock, and the ids of this trigger run. */
export interface BuildContext {
  now: Date;
  /**
   * The id named `name` in this run: made once by `make` and the same for every
   * event of a sequence, so the events refer to each other; fresh on each run.
   */
  id(name: string, make: () => string): string;
  /** The endpoint's secret, for providers that put it in the body (Microsoft Graph's clientState). */
  secret?: string;
  /** The endpoint's `verifyToken`, which Meta's verification request carries (`hub.verify_token`). */
  verifyToken?: string;
  /** `--api-version`: the API version to shape the payload for (a catalog with `apiVersions` only). */
  apiVersion?: string;
  /**
   * The URL the provider's webhook is configured with (where it is sent, or `--signature-url`): the ids of
   * the webhook itself (GitHub's hook id, Linear's webhookId) derive from it, the same on every trigger.
   */
  webhookUrl?: string;
}

/** One step of a sequence: an event and changes to its body. */
export interface SequenceStep {
  event: string;
  /** `path` → value changes, as `--set` makes them. */
  set?: Readonly<Record<string, unknown>>;
}

/** A flow of events in their real order. */
export interface Sequence {
  description: string;
  steps: readonly SequenceStep[];
}

/** How a generated entry was made. */
export interface EntryOrigin {
  /** `example` (a recorded payload), `example+schema` (completed from the schema), `schema` (built from it). */
  from: string;
  /** What an alias stands for: `pull_request.closed with merged: true`. */
  alias?: string;
}

/** Whether a catalog's `source` says it was generated (else it is hand-written). */
export function isGenerated(source: string): boolean {
  return source.startsWith("generated from ");
}

/** A provider's part of the catalog. */
export interface TriggerCatalog {
  /** The provider's canonical name (src/providers/catalog.ts). */
  readonly provider: string;
  /**
   * Where the events' payloads come from, shown by `trigger --list`: `"hand-written"`, or
   * `"generated from <package>@<exact version>"` (the pinned, machine-readable source a generator read).
   */
  readonly source: string;
  /**
   * How one event's payload was made, where a generated catalog tells its entries apart
   * (GitHub: `example`, `example+schema`, `schema`; an alias says what it stands for).
   */
  entryOrigin?(event: string): EntryOrigin | undefined;
  /** Every event that can be triggered, in listing order. */
  readonly events: readonly string[];
  /**
   * Events the provider sends unsigned (Meta's verification GET, `subscribe`): no secret is wanted for them,
   * and trigger warns of none missing.
   */
  readonly unsignedEvents?: readonly string[];
  /** Flows, by name (`checkout`). */
  readonly sequences: Readonly<Record<string, Sequence>>;
  /**
   * The wait before each retry of a failed delivery, in seconds, as the provider documents them: index 0 is
   * the wait between the first attempt (always sent at once) and retry #1, so a schedule that starts
   * "immediately" means the first attempt and is not listed.
   */
  readonly retries: readonly number[];
  /** Where the retry schedule comes from (shown by `--retries`). */
  readonly retriesNote: string;
  /** Headers a retry adds (Slack's `X-Slack-Retry-Num`), by attempt number (1 = first retry). */
  retryHeaders?(attempt: number): [string, string][];
  /**
   * Its signature covers the URL the delivery is sent to (Twilio's), so `--signature-url` means something;
   * absent: it covers no URL, and `--signature-url` is refused (the generic HMAC scheme: when its `signed`
   * names `{url}`).
   */
  readonly signsUrl?: boolean;
  /** The API versions `--api-version` may name (Stripe's), the pinned one last; absent: the option is refused. */
  readonly apiVersions?: readonly string[];
  /** Builds one event's delivery. */
  build(event: string, ctx: BuildContext): Draft | Promise<Draft>;
}
