/**
 * The inspector's own loopback server: the page, its assets and the JSON
 * API under `/api/`. It owns its listening socket (never the receiver's
 * port: a tunnel to the receiver must not publish it), refuses any `Host`
 * but this machine's (DNS rebinding), and serves only the user who started
 * it: every API call and the live stream must carry the session token,
 * which is given out only by the link hooktap prints
 * (`/?token=...`, exchanged for an HttpOnly, SameSite=Strict cookie and a
 * redirect that drops it from the address bar) and by owner-only files in
 * the data directory (./token_file.ts). The page itself holds no secret.
 * @module
 */
import { describeError, ServeError } from "../errors.ts";
import type { Endpoint } from "../config/types.ts";
import { ASSETS } from "./assets.gen.ts";
import { accessProblem, hostAllowed, sameSecret, SECURITY_HEADERS, sessionCookie } from "./guard.ts";
import { removeTokenFiles, type TokenFiles, writeTokenFiles } from "./token_file.ts";
import type { LiveSource } from "./live.ts";
import { createApi } from "./api/routes.ts";
import type { Resigner } from "./api/replay.ts";
import type { StorePaths } from "../store/paths.ts";

/** Options of {@linkcode startInspector}. */
export interface InspectorOptions {
  /** The store to show. */
  paths: StorePaths;
  /** Port to bind on 127.0.0.1; 0 picks a free one. */
  port: number;
  /**
   * When the port is taken, try the next ones (up to 20) instead of failing.
   * @default false
   */
  nextFreePort?: boolean;
  /** Ports `nextFreePort` passes over though free (a forward target's: the app's, when it starts). */
  skip?: ReadonlySet<number>;
  /** The config's endpoints (names for the filter). */
  config?: { endpoints: readonly Endpoint[] };
  /** New events as they are stored. */
  live?: LiveSource;
  /** The providers' re-signer; without it, replay refuses `resign: true`. */
  resign?: Resigner;
  /** Interface to bind. @default "127.0.0.1" */
  hostname?: string;
  /**
   * Write the token files into the store's data directory (`inspector-PORT.token`, `inspector-PORT.html`).
   * @default true
   */
  tokenFiles?: boolean;
  /**
   * How the command that starts it chooses its port, for the message when the port is taken: dev's
   * `--ui-port` and `--no-ui` (the default), or `hooktap ui`'s `--port` (`off` left out: it has no off).
   */
  portOptions?: PortOptions;
}

/** The options of the command that starts the inspector that choose its port, or turn it off. */
export interface PortOptions {
  /** The option that chooses the port: `--ui-port` (dev), `--port` (ui). */
  port: string;
  /** The option that turns the inspector off (dev's `--no-ui`), if there is one. */
  off?: string;
}

/** dev's options: what `startInspector` names when it is not told. */
export const DEV_PORT_OPTIONS: PortOptions = { port: "--ui-port", off: "--no-ui" };

/** A running inspector. */
export interface Inspector {
  readonly port: number;
  /** `http://127.0.0.1:PORT/` (answers only with the token). */
  readonly url: string;
  /** `http://127.0.0.1:PORT/?token=TOKEN`: the link to print; a browser opening it gets the session cookie. */
  readonly openUrl: string;
  /** The session token every API call must carry (`x-hooktap-token`, `Authorization: Bearer`, or the cookie). */
  readonly token: string;
  /** The owner-only files holding the token, when they could be written. */
  readonly tokenFiles?: TokenFiles;
  /** Why the token files could not be written (the printed link still works). */
  readonly tokenFileProblem?: string;
  /** Stops serving and closes live streams. */
  stop(): Promise<void>;
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

function _json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" },
  });
}

function _refused(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" },
  });
}

function _bind(hostname: string, port: number, handler: Deno.ServeHandler, signal: AbortSignal) {
  return Deno.serve({ hostname, port, signal, onListen: () => {} }, handler);
}

/**
 * Starts the inspector.
 * @throws {ServeError} when the port cannot be bound.
 */
export function startInspector(options: InspectorOptions): Inspector {
  const hostname = options.hostname ?? "127.0.0.1";
  const token = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  const abort = new AbortController();
  let port = 0;
  let files: TokenFiles | undefined;
  const api = createApi({
    paths: options.paths,
    endpoints: (options.config?.endpoints ?? []).map((e) => e.name),
    ...(options.live ? { live: options.live } : {}),
    ...(options.resign ? { resign: options.resign } : {}),
    signal: abort.signal,
  });
  const handler = async (request: Request): Promise<Response> => {
    if (!hostAllowed(request, port)) {
      return new Response(
        "The hooktap inspector answers only to http://localhost:" + port + "/ (this Host is refused).",
        { status: 403, headers: { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" } },
      );
    }
    const url = new URL(request.url);
    if (url.pathname.startsWith("/api/")) {
      const refusal = accessProblem(request, port, token, files?.token);
      if (refusal !== undefined) return _json(refusal.status, { error: `Refused: ${refusal.reason}.` });
      return await api(request, url);
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return _json(405, { error: "Method not allowed." });
    }
    const name = url.pathname === "/" ? "index.html" : url.pathname.slice(1);
    if (name === "index.html") {
      const given = url.searchParams.get("token");
      if (given !== null) {
        // The printed link: its token becomes the session cookie, and the address bar loses it.
        if (!sameSecret(given, token)) {
          return _refused(
            401,
            "This link's token is not this inspector's (it changes each time hooktap starts).\n" +
              "Open the link hooktap printed last.\n",
          );
        }
        return new Response(null, {
          status: 303,
          headers: { ...SECURITY_HEADERS, location: "/", "set-cookie": sessionCookie(port, token) },
        });
      }
      const refusal = accessProblem(request, port, token, files?.token);
      if (refusal !== undefined) {
        return _refused(
          refusal.status,
          `The hooktap inspector serves only the user who started it: open the link hooktap printed ` +
            `(http://127.0.0.1:${port}/?token=...)` +
            (files === undefined ? "" : `, or the page ${files.page}`) + ".\n",
        );
      }
    }
    const body = ASSETS[name];
    if (body === undefined) return _json(404, { error: `No such page: ${url.pathname}` });
    const ext = name.slice(name.lastIndexOf(".") + 1);
    return new Response(body, {
      headers: { ...SECURITY_HEADERS, "content-type": TYPES[ext] ?? "application/octet-stream" },
    });
  };
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  const tries = options.nextFreePort && options.port !== 0 ? 20 : 1;
  const hint = options.portOptions ?? DEV_PORT_OPTIONS;
  for (let i = 0; i < tries && server === undefined; i++) {
    if (i + 1 < tries && options.skip?.has(options.port + i)) continue;
    try {
      server = _bind(hostname, options.port + i, handler, abort.signal);
    } catch (error) {
      if (error instanceof Deno.errors.AddrInUse && i + 1 < tries) continue;
      const where = `${hostname}:${options.port}`;
      throw new ServeError(
        error instanceof Deno.errors.AddrInUse
          ? `Cannot start the inspector on ${where}: address already in use` +
            (tries > 1 ? ` (and the next ${tries - 1} ports too)` : "") +
            `. Pick another port with ${hint.port} (or \`ui: { port }\` in hooktap.config.ts)` +
            (hint.off !== undefined ? `, or turn it off with ${hint.off}.` : ".")
          : `Cannot start the inspector on ${where}: ${describeError(error)}`,
        { cause: error },
      );
    }
  }
  port = server!.addr.port;
  const openUrl = `http://127.0.0.1:${port}/?token=${token}`;
  const written = options.tokenFiles === false
    ? undefined
    : writeTokenFiles(options.paths.dir, port, token, openUrl);
  if (written !== undefined && !("problem" in written)) files = written;
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    openUrl,
    token,
    ...(files !== undefined ? { tokenFiles: files } : {}),
    ...(written !== undefined && "problem" in written ? { tokenFileProblem: written.problem } : {}),
    async stop() {
      abort.abort();
      if (files !== undefined) removeTokenFiles(files, token);
      await server!.finished;
    },
  };
}
