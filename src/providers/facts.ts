/**
 * The shape of a provider's `meta.ts`: pure, cheap facts about one sender
 * (names, title, how it signs) that readers, the config, send, trigger,
 * export and completions need without loading its verification. Pure types.
 * @module
 */

/** Where a signature's timestamp is and how to read it. */
export type SignedTimestamp =
  | {
    /** The header that carries it (as the provider spells it). */
    readonly header: string;
    /** How its value is read: whole seconds, an ISO date, or seconds captured by a pattern (group 1). */
    readonly read: "seconds" | "iso" | { readonly pattern: string };
    /** Other headers carrying the same timestamp, each with the scheme's name for messages. */
    readonly also?: readonly { readonly header: string; readonly label: string }[];
    /** The scheme's name in messages, when not the provider's title. */
    readonly label?: string;
  }
  | {
    /** The body field that carries it. */
    readonly bodyField: string;
    readonly unit: "ms";
    /** The smallest tolerance its libraries apply, in seconds, whatever the endpoint's. */
    readonly toleranceFloor?: number;
  };

/** A key pair a provider signs with (hooktap holds one to trigger it) and how its public key is written. */
export interface KeyPair {
  readonly kind: "ed25519" | "p256";
  /** How the `publicKey` config field takes it: hex, `whpk_` + base64, or base64. */
  readonly publicKey: "hex" | "whpk" | "base64";
}

/** One provider's facts. */
export interface ProviderMeta {
  /** The canonical name stored in records: `github`, `standard-webhooks`. */
  readonly name: string;
  /** Other names people use for it (lower case). */
  readonly aliases: readonly string[];
  /** Name for people: `GitHub`. */
  readonly title: string;
  /** Short name for tables (docs/trigger.md): `Twitch`, `X`. */
  readonly short: string;
  /** It signs a timestamp that receivers check: an old replay is refused unless re-signed. */
  readonly timestamped: boolean;
  /** hooktap can re-sign its requests with the endpoint's secret. */
  readonly resigns: boolean;
  /** Its signature covers the URL it called (Twilio): an app that checks it against its own URL refuses it. */
  readonly signsUrl?: boolean;
  /**
   * How long it waits for the answer before it gives up on a delivery, in ms, where it documents one (Slack,
   * Discord and Zoom: 3 s); an answer after that counts as none.
   */
  readonly answerWithinMs?: number;
  /**
   * Event types whose sender takes the app's answer as its reply (Discord's interactions, Slack's slash
   * commands and the interactivity payloads whose answer Slack uses): answered by hooktap's own 200 (forward
   * mode queue) the sender gets hooktap's answer, whatever the app answers after. A type matches an entry
   * equal to it or to its first word (`slash_command` matches `slash_command /deploy`): see
   * `answersByApp` (./catalog.ts).
   */
  readonly answeredByApp?: readonly string[];
  /** With {@linkcode ProviderMeta.answeredByApp}: what the user sees when the sender got hooktap's answer. */
  readonly answeredByAppLost?: string;
  /** The timestamp its signature covers, when it signs one. */
  readonly signedTimestamp?: SignedTimestamp;
  /** The key pair it signs with, when it does not sign with a shared secret. */
  readonly keyPair?: KeyPair;
  /** Headers (lower case) carrying its signature or a secret token: a fixture masks them. */
  readonly signatureHeaders: readonly string[];
  /** It has trigger samples (`catalog.ts`); false only for the fallback. */
  readonly triggerable: boolean;
  /** It publishes a schema of its payloads (`schema.ts`). */
  readonly schema?: boolean;
}
