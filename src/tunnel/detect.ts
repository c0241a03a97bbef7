/**
 * Finding a running tunnel from its local API, so `dev` and `doctor` can
 * print each endpoint's public URL and catch a tunnel pointed at the wrong
 * port. Two tools, from their documented local answers (neither runs in
 * hooktap's tests, which replay recorded answers from a fake local server):
 *
 * - ngrok's agent API: `GET http://127.0.0.1:4040/api/tunnels` →
 *   `{ tunnels: [{ public_url, proto, config: { addr } }] }`.
 * - a cloudflared quick tunnel's metrics server (first free of
 *   127.0.0.1:20241–20245): `GET /quicktunnel` → `{ hostname }`. Its local
 *   port is not in that answer, so it cannot be checked.
 * @module
 */

/** A tunnel found running. */
export interface Tunnel {
  tool: "ngrok" | "cloudflared";
  /** `https://abc.ngrok.app`, no trailing slash. */
  publicUrl: string;
  /** Where the tunnel forwards, as the tool reports it (`http://localhost:8787`); absent for cloudflared. */
  localAddr?: string;
  /** The port it forwards to, when known. */
  localPort?: number;
}

/** Options of {@linkcode detectTunnels}. */
export interface DetectOptions {
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** @default "http://127.0.0.1:4040" */
  ngrokApi?: string;
  /** @default the cloudflared metrics addresses 127.0.0.1:20241 to 20245 */
  cloudflaredMetrics?: readonly string[];
  /** Longest wait per probe, in milliseconds. @default 800 */
  timeoutMs?: number;
}

/** Where ngrok's agent API listens by default. */
export const NGROK_API = "http://127.0.0.1:4040";
/** Where a cloudflared quick tunnel's metrics server may listen. */
export const CLOUDFLARED_METRICS: readonly string[] = [20241, 20242, 20243, 20244, 20245].map((p) =>
  `http://127.0.0.1:${p}`
);

/** The port of an ngrok `config.addr`: `http://localhost:8787`, `localhost:8787` or `8787`. */
export function portOfAddr(addr: string): number | undefined {
  if (/^\d{1,5}$/.test(addr)) return Number(addr);
  const m = addr.match(/^(?:[a-z]+:\/\/)?(?:\[[^\]]*\]|[^/:]*):(\d{1,5})(?:\/.*)?$/i);
  if (m) return Number(m[1]);
  try {
    const url = new URL(addr);
    return url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  } catch {
    return undefined;
  }
}

async function getJson(fetcher: typeof fetch, url: string, timeoutMs: number): Promise<unknown> {
  try {
    const response = await fetcher(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    return await response.json();
  } catch {
    return undefined;
  }
}

/** Parses ngrok's `/api/tunnels` answer. */
export function parseNgrokTunnels(answer: unknown): Tunnel[] {
  const list = (answer as { tunnels?: unknown })?.tunnels;
  if (!Array.isArray(list)) return [];
  const tunnels: Tunnel[] = [];
  for (const t of list as { public_url?: unknown; config?: { addr?: unknown } }[]) {
    if (typeof t?.public_url !== "string" || !/^https?:\/\//.test(t.public_url)) continue;
    const addr = typeof t.config?.addr === "string" ? t.config.addr : undefined;
    const port = addr === undefined ? undefined : portOfAddr(addr);
    tunnels.push({
      tool: "ngrok",
      publicUrl: t.public_url.replace(/\/+$/, ""),
      ...(addr === undefined ? {} : { localAddr: addr }),
      ...(port === undefined ? {} : { localPort: port }),
    });
  }
  // ngrok v2 listed an http and an https tunnel for one forward: keep the https one.
  return tunnels.filter((t) =>
    !(t.publicUrl.startsWith("http://") &&
      tunnels.some((o) => o.publicUrl === t.publicUrl.replace(/^http:/, "https:")))
  );
}

/** Parses cloudflared's `/quicktunnel` answer. */
export function parseQuickTunnel(answer: unknown): Tunnel | undefined {
  const host = (answer as { hostname?: unknown })?.hostname;
  if (typeof host !== "string" || !/^[a-z0-9.-]+$/i.test(host)) return undefined;
  return { tool: "cloudflared", publicUrl: `https://${host}` };
}

/**
 * The tunnels whose local API answers now (`[]` when none does).
 *
 * @example
 * ```ts
 * import { detectTunnels } from "./detect.ts";
 * for (const t of await detectTunnels()) console.log(t.tool, t.publicUrl, t.localPort);
 * ```
 */
export async function detectTunnels(options: DetectOptions = {}): Promise<Tunnel[]> {
  const fetcher = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 800;
  const ngrok = getJson(fetcher, `${options.ngrokApi ?? NGROK_API}/api/tunnels`, timeoutMs)
    .then(parseNgrokTunnels);
  const quick = Promise.all(
    (options.cloudflaredMetrics ?? CLOUDFLARED_METRICS).map((base) =>
      getJson(fetcher, `${base}/quicktunnel`, timeoutMs).then(parseQuickTunnel)
    ),
  );
  const [found, quicks] = await Promise.all([ngrok, quick]);
  const seen = new Set<string>();
  for (const q of quicks) {
    if (q !== undefined && !seen.has(q.publicUrl)) {
      seen.add(q.publicUrl);
      found.push(q);
    }
  }
  return found;
}

/** Environment variables that move the probes (tests, a non-default ngrok `web_addr`). */
export const TUNNEL_ENV = { ngrok: "HOOKTAP_NGROK_API", cloudflared: "HOOKTAP_CLOUDFLARED_METRICS" } as const;

function envOf(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") return undefined;
  return Deno.env.get(name) || undefined;
}

/** Probe addresses from the environment when set and readable, else the defaults. */
export function probeOptionsFromEnv(): DetectOptions {
  const ngrok = envOf(TUNNEL_ENV.ngrok);
  const cf = envOf(TUNNEL_ENV.cloudflared);
  return {
    ...(ngrok === undefined ? {} : { ngrokApi: ngrok.replace(/\/+$/, "") }),
    ...(cf === undefined
      ? {}
      : { cloudflaredMetrics: cf.split(",").map((s) => s.trim().replace(/\/+$/, "")) }),
  };
}
