/**
 * What `hooktap hub serve` says once it listens: where, its store, the
 * channel URLs it builds, the admin API, the limits. Each line true: a hub
 * bound to every interface (`0.0.0.0`, `::`) with no `--public-url` builds
 * channel URLs on the address `hub channel create --hub` is given, never on
 * `0.0.0.0`, which no sender reaches.
 * @module
 */

/** What the banner says. */
export interface HubBannerInput {
  /** `http://127.0.0.1:8786`, as the listener gives it. */
  url: string;
  hostname: string;
  port: number;
  scheme: "http" | "https";
  kvPath: string;
  publicUrl: string | undefined;
  /** Whether an admin token is set (the admin API is on). */
  admin: boolean;
  /** `hooktap`, as the user runs it. */
  invokedAs: string;
  adminEnv: string;
  /** The limits line. */
  limits: string;
  /** Colours a warning. */
  warn: (text: string) => string;
}

/** The banner's text (newline-terminated lines). */
export function hubBanner(b: HubBannerInput): string {
  const everywhere = b.hostname === "0.0.0.0" || b.hostname === "::";
  // From this machine, a hub on every interface is reached on loopback.
  const local = everywhere ? `${b.scheme}://${b.hostname === "::" ? "[::1]" : "127.0.0.1"}:${b.port}` : b.url;
  const channels = b.publicUrl !== undefined
    ? `  channel URLs: ${b.publicUrl}/c/<id>\n`
    : everywhere
    ? b.warn(
      "  channel URLs: <the URL given to hub channel create --hub>/c/<id>; start with --public-url " +
        "https://<the address senders reach> so they are built on it\n",
    )
    : `  channel URLs: ${b.url}/c/<id>\n`;
  return `hooktap hub listening on ${b.url}\n  store: ${b.kvPath}\n${channels}` +
    (b.admin
      ? `  admin API on: ${b.invokedAs} hub channel create --hub ${
        b.publicUrl ?? local
      }  (with ${b.adminEnv} set)\n`
      : b.warn(`  admin API off (no ${b.adminEnv}): no channel can be created.\n`)) +
    `  limits: ${b.limits} (docs/hub.md#limits)\n`;
}
