/**
 * `hub serve`'s limit flags, read into the hub's limits (usage errors name
 * the flag and the form it takes).
 * @module
 */
import { UsageError } from "../../errors.ts";
import { type HubLimits, MAX_BODY_SIZE_LIMIT } from "../../hub/limits.ts";
import { parseDuration } from "../../query/filter.ts";
import { plural } from "../../text/format.ts";

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** The longest `--answer-timeout`: 5 minutes. */
export const MAX_ANSWER_TIMEOUT_MS = 5 * 60_000;

/** A size like `10MiB`, `512k` or `1048576` (bytes), in bytes. */
export function parseSize(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (m === null || unit === undefined || Number(m[1]) * unit < 1) {
    throw new UsageError(`${flag} must be a size like 10MiB, 512KiB or 1048576 (bytes), got "${text}".`);
  }
  return Math.floor(Number(m[1]) * unit);
}

function count(text: string, flag: string, zero: boolean): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || (!zero && n === 0)) {
    throw new UsageError(`${flag} must be a whole number${zero ? " (0 = off)" : " above 0"}, got "${text}".`);
  }
  return n;
}

/** The limits the flags give (those not given are left to the defaults). */
export function limitsFrom(opts: {
  maxBodySize?: string | undefined;
  rateLimit?: string | undefined;
  maxChannels?: string | undefined;
  maxClients?: string | undefined;
  maxConnections?: string | undefined;
  maxChannelBytes?: string | undefined;
  retention?: string | undefined;
  answerTimeout?: string | undefined;
  maxBytesInFlight?: string | undefined;
  maxBytesInFlightPerChannel?: string | undefined;
  maxBytesInFlightPerAddress?: string | undefined;
}): Partial<HubLimits> {
  const out: Partial<HubLimits> = {};
  if (opts.maxBodySize !== undefined) {
    out.maxBodySize = parseSize(opts.maxBodySize, "--max-body-size");
    if (out.maxBodySize > MAX_BODY_SIZE_LIMIT) {
      throw new UsageError(
        `--max-body-size must be at most 64MiB, got "${opts.maxBodySize}": dev takes events from the hub up to ` +
          "that size, and a larger one stored would stop every client's catch-up at it.",
      );
    }
  }
  if (opts.rateLimit !== undefined) out.ratePerMinute = count(opts.rateLimit, "--rate-limit", true);
  if (opts.maxChannels !== undefined) out.maxChannels = count(opts.maxChannels, "--max-channels", false);
  if (opts.maxClients !== undefined) out.maxClients = count(opts.maxClients, "--max-clients", false);
  if (opts.maxConnections !== undefined) {
    out.maxConnections = count(opts.maxConnections, "--max-connections", false);
  }
  if (opts.maxChannelBytes !== undefined) {
    out.maxChannelBytes = parseSize(opts.maxChannelBytes, "--max-channel-bytes");
  }
  if (opts.maxBytesInFlight !== undefined) {
    out.maxBytesInFlight = parseSize(opts.maxBytesInFlight, "--max-bytes-in-flight");
  }
  if (opts.maxBytesInFlightPerChannel !== undefined) {
    out.maxBytesInFlightPerChannel = parseSize(
      opts.maxBytesInFlightPerChannel,
      "--max-bytes-in-flight-per-channel",
    );
  }
  if (opts.maxBytesInFlightPerAddress !== undefined) {
    out.maxBytesInFlightPerAddress = parseSize(
      opts.maxBytesInFlightPerAddress,
      "--max-bytes-in-flight-per-address",
    );
  }
  if (opts.retention !== undefined) {
    const ms = parseDuration(opts.retention);
    if (ms === undefined || ms <= 0) {
      throw new UsageError(`--retention must be a duration like 7d, 12h or 30m, got "${opts.retention}".`);
    }
    out.retentionMs = ms;
  }
  if (opts.answerTimeout !== undefined) {
    const ms = parseDuration(opts.answerTimeout);
    if (ms === undefined || ms <= 0) {
      throw new UsageError(`--answer-timeout must be a duration like 5s or 1m, got "${opts.answerTimeout}".`);
    }
    // Senders give up far sooner (seconds); a longer wait only holds them, and a killed dev counts as
    // connected that long. (Past about 24 days the runtime's timer would also fire at once.)
    if (ms > MAX_ANSWER_TIMEOUT_MS) {
      throw new UsageError(
        `--answer-timeout must be at most 5m, got "${opts.answerTimeout}": senders stop waiting for an answer ` +
          "within seconds, and a dev that is killed counts as connected for that long.",
      );
    }
    out.answerTimeoutMs = ms;
  }
  return out;
}

function size(n: number): string {
  for (const [unit, k] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) {
    if (n >= k && n % k === 0) return `${n / k} ${unit}`;
  }
  return `${n} bytes`;
}

function duration(ms: number): string {
  for (const [unit, k] of [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1000]] as const) {
    if (ms >= k && ms % k === 0) return `${ms / k}${unit}`;
  }
  return `${ms}ms`;
}

/** The limits in one line, for the banner: those in effect (each bound of bytes in flight at least a body). */
export function limitsLine(l: HubLimits): string {
  const inFlight = (n: number) => Math.max(n, l.maxBodySize);
  return [
    `body ${size(l.maxBodySize)}`,
    l.ratePerMinute === 0 ? "no rate limit" : `${l.ratePerMinute} requests/min per channel`,
    `${size(l.maxChannelBytes)} per channel`,
    `retention ${duration(l.retentionMs)}`,
    plural(l.maxChannels, "channel"),
    `${plural(l.maxClients, "client")} and ${plural(l.maxConnections, "connection")} per channel`,
    `bodies in flight ${size(inFlight(l.maxBytesInFlight))} (${
      size(inFlight(l.maxBytesInFlightPerChannel))
    } per channel, ${size(inFlight(l.maxBytesInFlightPerAddress))} per address)`,
    `answers waited for ${duration(l.answerTimeoutMs)}`,
  ].join(", ");
}
