/**
 * How the providers sign, derived from their facts (metas.gen.ts): which
 * sign with a key pair, which sign a timestamp and how to read it back from
 * a stored request's headers. Pure; cheap (no provider is loaded).
 * @module
 */
import type { KeyPair } from "./facts.ts";
import { PROVIDER_METAS } from "./metas.gen.ts";

const METAS = Object.values(PROVIDER_METAS);

/** Providers signed with a key pair rather than a shared secret, by canonical name. */
export const KEYED_PROVIDERS: ReadonlySet<string> = new Set(
  METAS.filter((m) => m.keyPair !== undefined).map((m) => m.name),
);

/** The key pair `provider` (canonical name) signs with, or `undefined`. */
export function keyPairOf(provider: string): KeyPair | undefined {
  return METAS.find((m) => m.name === provider)?.keyPair;
}

/** Where each provider that signs a timestamp puts it: a header, or a body field and its unit. */
export const SIGNED_TIMESTAMP: Readonly<
  Record<string, { header: string } | { bodyField: string; unit: "ms" }>
> = Object.fromEntries(METAS.flatMap((m) => {
  const t = m.signedTimestamp;
  if (t === undefined) return [];
  return [[m.name, "header" in t ? { header: t.header } : { bodyField: t.bodyField, unit: t.unit }]];
}));

/** The smallest tolerance (seconds) `provider`'s libraries apply to its signed timestamp, if they set one. */
export function toleranceFloor(provider: string): number | undefined {
  const t = METAS.find((m) => m.name === provider)?.signedTimestamp;
  return t !== undefined && "bodyField" in t ? t.toleranceFloor : undefined;
}

/** One header carrying a signed timestamp that receivers check, with how to read it and the scheme's name. */
export interface TimestampHeader {
  /** The provider's canonical name. */
  readonly provider: string;
  /** The scheme's name in messages: `Slack`, `Svix`. */
  readonly label: string;
  /** The header, lower case. */
  readonly header: string;
  /** The time it holds (ms), or `undefined` when the value is not one. */
  read(value: string): number | undefined;
}

function _seconds(v: string | undefined): number | undefined {
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) * 1000 : undefined;
}

/** The headers of timestamped signatures receivers check (`timestamped` providers), in detection order. */
export const TIMESTAMP_HEADERS: readonly TimestampHeader[] = METAS.flatMap((m): TimestampHeader[] => {
  const t = m.signedTimestamp;
  if (!m.timestamped || t === undefined || !("header" in t)) return [];
  const how = t.read;
  const read = how === "seconds"
    ? _seconds
    : how === "iso"
    ? (v: string) => Date.parse(v.replace(/(\.\d{3})\d+/, "$1"))
    : (v: string) => _seconds(v.match(new RegExp(how.pattern))?.[1]);
  return [
    { provider: m.name, label: t.label ?? m.title, header: t.header.toLowerCase(), read },
    ...(t.also ?? []).map((a) => ({
      provider: m.name,
      label: a.label,
      header: a.header.toLowerCase(),
      read,
    })),
  ];
});
