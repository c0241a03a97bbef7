/**
 * Values as people type them on a command line or in a config: durations
 * (`500ms`, `30s`, `1h30m`, `7d`), times (`2h` ago, `2024-05-01T10:00:00Z`) and
 * http(s) URLs. The one reader behind the CLI's option kinds (src/cli/parse.ts),
 * the filter language, the config's retention and `--to`. Pure, no imports.
 * @module
 */

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * A duration like `500ms`, `30s`, `10m`, `2h`, `1d`, `1h30m`, in milliseconds;
 * a bare number is in `bareUnit`.
 * @returns `undefined` when `text` is not a duration.
 */
export function parseDuration(text: string, bareUnit: "s" | "ms" = "s"): number | undefined {
  const t = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * UNITS[bareUnit]!;
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d|w))+$/.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)) total += Number(m[1]) * UNITS[m[2]!]!;
  return total;
}

/** Whether `text` is a bare number (a duration without its unit). */
export function isBareNumber(text: string): boolean {
  return /^\d+(\.\d+)?$/.test(text.trim());
}

/**
 * The time `text` stands for: a duration (with its unit) back from `now`
 * (`10m`, `2h`), or an ISO 8601 date or time (`2024-05-01`, `2024-05-01T10:00:00Z`).
 * @returns `undefined` for anything else.
 */
export function parseWhen(text: string, now: Date = new Date()): Date | undefined {
  const ms = parseDuration(text);
  if (ms !== undefined && !isBareNumber(text)) return new Date(now.getTime() - ms);
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(text.trim());
  if (day !== null) {
    // Date.parse rolls an impossible day over (2026-02-30 is March 2): such a date is refused.
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const real = new Date(Date.UTC(y, m - 1, d));
    if (real.getUTCMonth() !== m - 1 || real.getUTCDate() !== d) return undefined;
    const at = Date.parse(text.trim());
    if (!Number.isNaN(at)) return new Date(at);
  }
  return undefined;
}

/** `localhost:3000/hook`, `127.0.0.1:8080`, `example.com/x`: a host without its scheme. */
const BARE_HOST = /^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]|[a-z0-9-]+(\.[a-z0-9-]+)+)(:\d+)?(\/|$)/i;

/**
 * What is wrong with `text` as an http(s) URL given as `flag`, as the end of a sentence, or `undefined`
 * when it is one: `--to needs a scheme: did you mean http://localhost:3000 ? (got "localhost:3000")`.
 */
export function httpUrlProblem(text: string, flag: string): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  // An http(s) URL first: BARE_HOST cannot match one (its scheme, with no dot, is followed by a colon and
  // no port), and testing it first compiled the case-insensitive pattern at every start (~0.3 ms).
  if (url?.protocol === "http:" || url?.protocol === "https:") {
    if (url.username === "" && url.password === "") return undefined;
    // Sent as given, they would be dropped (a request carries no URL's credentials) and printed on each line.
    url.username = url.password = "";
    return `${flag} holds a user name or password, which hooktap does not send (and would print): give ` +
      `${flag} ${url.href} and, where your app needs them, an Authorization header (replay and trigger take ` +
      `-H "Authorization: Basic <base64 of user:password>").`;
  }
  if (BARE_HOST.test(text)) return `${flag} needs a scheme: did you mean http://${text} ? (got "${text}")`;
  if (url === undefined) {
    return `${flag} must be a full URL like http://localhost:3000/webhook, got "${text}".`;
  }
  return `${flag} must be an http:// or https:// URL, got "${text}".`;
}
