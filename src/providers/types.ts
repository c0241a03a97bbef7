/**
 * The one small interface every provider file implements, and the shapes
 * it works on: a read-only view of the request, the endpoint's signing
 * settings, a challenge answer. Pure types.
 * @module
 */
import type { Verdict } from "../event/record.ts";
import type { Schema } from "../schema/validate.ts";

/** A request as providers see it: the exact body bytes and the raw header list. */
export interface RequestView {
  /** HTTP method. */
  readonly method: string;
  /** URL path, percent-encoding kept. */
  readonly path: string;
  /** Raw query string without `?`. */
  readonly query: string;
  /** Headers as received, in order, repeats kept. */
  readonly headers: readonly [string, string][];
  /** The exact body bytes. */
  readonly body: Uint8Array;
  /** When it arrived (the clock timestamps are checked against). */
  readonly receivedAt: Date;
  /** First value of a header, any case. */
  header(name: string): string | undefined;
  /** The body as UTF-8 text (decoded once). */
  text(): string;
  /** The body parsed as JSON, or `undefined` (parsed once). */
  json(): unknown;
  /** The query parameters (parsed once). */
  params(): URLSearchParams;
  /** The URL the sender called, from Host and X-Forwarded-* headers (Twilio signs it). */
  publicUrl(): string;
}

/** A generic HMAC scheme described in the config. */
export interface GenericHmacSettings {
  /** Header that carries the signature. */
  readonly header: string;
  /** Hash of the HMAC. */
  readonly algorithm: "sha1" | "sha256" | "sha512";
  /** Encoding of the signature. */
  readonly encoding: "hex" | "base64";
  /** Text before the signature in the header (`sha256=`); `""` for none. */
  readonly prefix: string;
  /** What is signed: a template of `{body}`, `{method}`, `{url}` and `{header:Name}`; default `{body}`. */
  readonly signed: string;
}

/** An endpoint's signing settings, resolved. */
export interface ProviderSettings {
  /** The declared provider; detected from the request when absent. */
  readonly provider?: string;
  /** Secrets to try, newest first (several while rotating). */
  readonly secrets: readonly string[];
  /** Public key of asymmetric schemes (Discord, SendGrid, Standard Webhooks v1a). */
  readonly publicKey?: string;
  /** Meta's `hub.verify_token`. */
  readonly verifyToken?: string;
  /** Largest accepted age of a signed timestamp, in seconds. */
  readonly tolerance: number;
  /** Answer 401 to an invalid or missing signature. */
  readonly enforce: boolean;
  /** A generic HMAC scheme, when the config gives one. */
  readonly hmac?: GenericHmacSettings;
}

/** A built-in answer to a provider's URL check. */
export interface ChallengeAnswer {
  /** HTTP status. */
  status: number;
  /** Headers, in order. */
  headers: [string, string][];
  /** Body text. */
  body: string;
}

/** A request to be re-signed: its target URL and what is sent. */
export interface ResignRequest {
  /** HTTP method. */
  method: string;
  /** Target URL. */
  url: string;
  /** Headers to send, in order. */
  headers: readonly [string, string][];
  /** The exact body bytes. */
  body: Uint8Array;
}

/** One sender: what it looks like, what it sends, how it signs. */
export interface Provider {
  /** Short name stored in records: `github`, `stripe`, `standard-webhooks`. */
  readonly name: string;
  /** Name for people: `GitHub`. */
  readonly title: string;
  /** Headers that carry its signature (masked in fixture exports). */
  readonly signatureHeaders: readonly string[];
  /** Whether it signs a timestamp (a replay must be re-signed once it is old). */
  readonly timestamped: boolean;
  /** Whether this request comes from it. */
  detect(view: RequestView): boolean;
  /** The event type (`push`, `invoice.paid`), when the request names one. */
  eventType(view: RequestView): string | undefined;
  /** The signature verdict and why. */
  verify(view: RequestView, settings: ProviderSettings): Verdict | Promise<Verdict>;
  /** The answer to a URL challenge, or `undefined` when this is not one. */
  challenge?(
    view: RequestView,
    settings: ProviderSettings,
  ): ChallengeAnswer | undefined | Promise<ChallengeAnswer | undefined>;
  /** The headers of `request` signed afresh at `now`, or `undefined` when it cannot sign. */
  resign?(
    request: ResignRequest,
    settings: ProviderSettings,
    now: Date,
  ): [string, string][] | Promise<[string, string][]>;
  /**
   * The headers of `request` signed with a private key at `now`, for schemes
   * signed by the sender's key pair (Discord, SendGrid, Standard Webhooks v1a):
   * `hooktap trigger` signs with a key pair of its own.
   */
  sign?(request: ResignRequest, privateKey: CryptoKey, now: Date): Promise<[string, string][]>;
}

/** A provider's published payload schema. */
export interface PayloadSchema {
  /** Where it comes from, with its exact version: `@octokit/openapi-webhooks@12.1.0`. */
  readonly source: string;
  /**
   * The schema of one event type (as hooktap types it: `issues.closed`) and the document its `$ref`s point
   * into, or undefined when none is published. May load it (GitHub's: one module per event).
   */
  schemaOf(type: string): Promise<{ schema: Schema; root: Record<string, unknown> } | undefined>;
}
