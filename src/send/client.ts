/**
 * The raw HTTP client the forwarder sends with. `http:` targets: our
 * HTTP/1.1 client over `Deno.connect` (./http1.ts), which writes the headers
 * exactly as given (case, order, repeats) with only `Host` (ours, first)
 * added, at about two thirds of `node:http`'s CPU and less than half of
 * `fetch`'s (bench/forward_clients.ts; Deno's `fetch` also lowercases names,
 * joins repeats and adds `accept`, `user-agent`, `accept-encoding`).
 * `https:` targets: `node:https` with a flat raw header array (it adds
 * `Connection: keep-alive`), loaded on first use, because `Deno.connectTls`
 * cannot skip certificate checks (`insecure`), refuses a self-signed
 * certificate that is its own CA (`openssl req -x509`'s kind: rustls says
 * CaUsedAsEndEntity) and does not read the system store (mkcert's CA).
 * No redirects are followed; the answer's body is read up to a cap.
 * @module
 */
import type http from "node:http";
import type https from "node:https";
import {
  AnswerBody,
  answerHasNoBody,
  type BodyBudgetLike,
  encodeRequest,
  Http1Error,
  type Http1Origin,
  Http1Pool,
  type Http1Request,
  type Http1Response,
  LOOPBACKS,
} from "./http1.ts";
import { shellQuote } from "../text/command_line.ts";

/** What the target answered: status, headers in order (repeats kept), the body up to a cap. */
export type RawResponse = Http1Response;

/** Why there was no answer. */
export class SendError extends Error {
  /** `refused`, `timeout`, `tls`, `dns`, `reset` or `other`. */
  readonly kind: "refused" | "timeout" | "tls" | "dns" | "reset" | "other";
  constructor(kind: SendError["kind"], message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SendError";
    this.kind = kind;
  }
}

/** Options of {@linkcode sendRaw}. */
export interface SendOptions {
  /** Longest wait for the whole answer, in milliseconds. @default 30000 */
  timeoutMs?: number;
  /** Accept any certificate (a local self-signed one). @default false */
  insecure?: boolean;
  /** Extra CA certificate(s), PEM, to trust for https targets. */
  ca?: string;
  /** How much of the answer's body to keep, in bytes. @default 65536 */
  maxBody?: number;
  /** Cancels the request. */
  signal?: AbortSignal;
  /** Keep the connection open for the next send. @default true */
  keepAlive?: boolean;
  /** Charged with the body kept, as it arrives (a relay's shared bound): see ./http1.ts. */
  budget?: BodyBudgetLike;
}

const pool = new Http1Pool();
/**
 * Where a URL sends to, read once per URL object (a target's URL is one object from delivery to delivery:
 * src/route/expand.ts keeps them), and the headers not copied to put `Host` first.
 * The URL must not change after it was first sent to.
 */
const routes = new WeakMap<URL, { origin: Http1Origin; target: string; host: string }>();
/** `node:https` and its keep-alive agents by trust settings, loaded on first use. */
let tls: { https: typeof https; agents: Map<string, https.Agent> } | undefined;

async function httpsAgent(insecure: boolean, ca: string | undefined) {
  if (tls === undefined) tls = { https: (await import("node:https")).default, agents: new Map() };
  const key = `${insecure}:${ca ?? ""}`;
  let agent = tls.agents.get(key);
  if (agent === undefined) {
    agent = new tls.https.Agent({ keepAlive: true, rejectUnauthorized: !insecure, ...(ca ? { ca } : {}) });
    tls.agents.set(key, agent);
  }
  return { https: tls.https, agent };
}

/**
 * Why node:https was refused a permission, and the fix. With `NODE_EXTRA_CA_CERTS` set, Deno's node:https
 * reads the system CA store, which needs the whole of `--allow-sys` (Deno 2.9 names no descriptor for it):
 * no install of hooktap grants it, so the fix that works for all of them is to give Deno the file instead.
 */
function _httpsPermission(): string {
  let extra: string | undefined;
  try {
    extra = Deno.env.get("NODE_EXTRA_CA_CERTS") || undefined;
  } catch { /* no env permission: the generic fix below */ }
  return extra === undefined
    ? "https targets need Deno's --allow-sys and --allow-env permissions (node:https reads the CA store): " +
      "add them to your deno run flags"
    : "https needs the whole of Deno's --allow-sys while NODE_EXTRA_CA_CERTS is set (Deno's node:https then " +
      "reads the system CA store), and hooktap runs without it: give Deno the certificates instead, " +
      `NODE_EXTRA_CA_CERTS= DENO_CERT=${
        shellQuote(extra)
      } before the command (or add --allow-sys to your deno run flags)`;
}

/** Closes the kept-alive connections not in use (at the end of a `dev` session). */
export function closeIdleConnections(): void {
  pool.close();
  for (const agent of tls?.agents.values() ?? []) agent.destroy();
  tls?.agents.clear();
}

function classify(error: unknown, url: URL, timeoutMs: number): SendError {
  if (error instanceof Http1Error) {
    if (error.kind === "timeout") return new SendError("timeout", error.message);
    if (error.kind === "reset") return new SendError("reset", error.message, { cause: error });
    return new SendError("other", error.message, { cause: error });
  }
  const e = error as { code?: string; message?: string } | null;
  const text = `${e?.code ?? ""} ${e?.message ?? String(error)}`;
  const where = url.host;
  if (/Requires (sys|env) access/i.test(text)) {
    return new SendError("other", _httpsPermission(), { cause: error });
  }
  if (/ECONNREFUSED|connection refused/i.test(text)) {
    return new SendError("refused", `nothing listens on ${where}`, { cause: error });
  }
  if (/ENOTFOUND|EAI_AGAIN/i.test(text)) {
    return new SendError("dns", `cannot resolve ${url.hostname}`, { cause: error });
  }
  if (/cert|tls|ssl|handshake|self.signed|UNABLE_TO_VERIFY/i.test(text)) {
    return new SendError(
      "tls",
      `TLS failed (${text.trim()}); for a local self-signed certificate set forward.insecure or forward.ca (replay takes --insecure)`,
      { cause: error },
    );
  }
  // After the certificate's errors: a name mismatch names the certificate's `DNS:` names.
  if (/dns|lookup/i.test(text)) {
    return new SendError("dns", `cannot resolve ${url.hostname}`, { cause: error });
  }
  if (/ECONNRESET|socket hang up|EPIPE|closed|reset|broken pipe/i.test(text)) {
    return new SendError("reset", "the connection was closed before an answer came", { cause: error });
  }
  if (/timeout/i.test(text)) return new SendError("timeout", `no answer within ${timeoutMs} ms`);
  return new SendError("other", text.trim(), { cause: error });
}

/**
 * Sends one request exactly as given and reads the answer.
 * @throws {SendError} when there is no answer (refused, timeout, TLS, DNS, reset).
 */
export async function sendRaw(
  url: URL,
  request: { method: string; headers: readonly [string, string][]; body: Uint8Array | null },
  options: SendOptions = {},
): Promise<RawResponse> {
  try {
    return await startSend(url, request, options);
  } catch (error) {
    throw sendFailure(error, url, options);
  }
}

/** Where `url` sends to (see {@linkcode routes}). */
function routeOf(url: URL) {
  let route = routes.get(url);
  if (route === undefined) {
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    const port = url.port === "" ? 80 : Number(url.port);
    route = {
      origin: { hostname, port, key: `${hostname}:${port}` },
      target: `${url.pathname}${url.search}`,
      host: url.host,
    };
    routes.set(url, route);
  }
  return route;
}

/**
 * The bytes {@linkcode startSend} writes for `request` to `url`, built ahead (into `lend(size)` when given),
 * to be passed back as its `encoded`; `undefined` for an `https:` URL (sent by `node:https`) or a request
 * that cannot be sent (its send says why).
 */
export function encodeFor(
  url: URL,
  request: { method: string; headers: readonly [string, string][]; body: Uint8Array | null },
  lend?: (size: number) => Uint8Array,
): Uint8Array | undefined {
  if (url.protocol !== "http:") return undefined;
  const route = routeOf(url);
  try {
    return encodeRequest(
      {
        method: request.method,
        target: route.target,
        host: route.host,
        headers: request.headers,
        body: request.body,
      },
      lend,
    );
  } catch {
    return undefined;
  }
}

/**
 * {@linkcode sendRaw} without an async frame of its own (the forwarder's path, one delivery after another:
 * ./deliver.ts): its rejection is passed through {@linkcode sendFailure} by the caller.
 */
export function startSend(
  url: URL,
  request: {
    method: string;
    headers: readonly [string, string][];
    body: Uint8Array | null;
    /** The bytes {@linkcode encodeFor} built for this request to this URL: written as they are (http only). */
    encoded?: Uint8Array | undefined;
  },
  options: SendOptions,
): Promise<RawResponse> {
  if (url.protocol === "https:") return sendHttps(url, request, options);
  const route = routeOf(url);
  const sent: Http1Request = {
    method: request.method,
    target: route.target,
    host: route.host,
    headers: request.headers,
    body: request.body,
  };
  if (request.encoded !== undefined) sent.encoded = request.encoded;
  return pool.request(
    route.origin,
    sent,
    {
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBody: options.maxBody ?? 64 * 1024,
      signal: options.signal,
      reuse: options.keepAlive ?? true,
      budget: options.budget,
    },
  );
}

/** What {@linkcode sendRaw} throws for `error`, a rejection of {@linkcode startSend}'s promise. */
export function sendFailure(error: unknown, url: URL, options: SendOptions): unknown {
  if (url.protocol === "https:") return error; // sendHttps says what failed itself
  return classify(error, url, options.timeoutMs ?? 30_000);
}

/**
 * https: `node:https` with a flat raw header array (keeps case, order, repeats). A refused `localhost` is
 * tried at each loopback address in turn, as ./http1.ts's `connectTcp` does for http (Deno connects to the
 * first address only, denoland/deno#25661), its certificate still checked for `localhost`. Nothing was sent
 * to a refused address, so trying the next one cannot deliver twice.
 */
async function sendHttps(
  url: URL,
  request: { method: string; headers: readonly [string, string][]; body: Uint8Array | null },
  options: SendOptions,
): Promise<RawResponse> {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  try {
    return await sendHttpsTo(url, hostname, request, options);
  } catch (error) {
    if (hostname.toLowerCase() !== "localhost" || !isRefused(error)) throw error;
    for (const address of LOOPBACKS) {
      try {
        return await sendHttpsTo(url, address, request, options);
      } catch (other) {
        if (!isRefused(other)) throw other; // it listens there: its own error (a certificate's) says more
      }
    }
    throw error;
  }
}

const isRefused = (error: unknown) => error instanceof SendError && error.kind === "refused";

/** One https request to `url` at `address` (its host name, or a loopback address for `localhost`). */
async function sendHttpsTo(
  url: URL,
  address: string,
  request: { method: string; headers: readonly [string, string][]; body: Uint8Array | null },
  options: SendOptions,
): Promise<RawResponse> {
  const { https, agent } = await httpsAgent(options.insecure ?? false, options.ca);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBody = options.maxBody ?? 64 * 1024;
  const flat: string[] = ["Host", url.host];
  for (const [name, value] of request.headers) flat.push(name, value);
  // A permission Deno refuses (NODE_EXTRA_CA_CERTS without --allow-sys) is thrown by https.request itself.
  return await new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error instanceof SendError ? error : classify(error, url, timeoutMs));
    };
    const params = {
      hostname: address,
      // At a loopback address for `localhost`: the certificate is checked for (and SNI names) `localhost`.
      ...(address !== url.hostname.replace(/^\[|\]$/g, "") ? { servername: url.hostname } : {}),
      port: url.port === "" ? 443 : Number(url.port),
      method: request.method,
      path: `${url.pathname}${url.search}`,
      // A flat array keeps case, order and repeats (node:http's raw-header form).
      headers: flat as unknown as http.OutgoingHttpHeaders,
      setHost: false,
      agent,
    };
    const req = https.request(params, (res) => {
      const raw = res.rawHeaders;
      const headers: [string, string][] = [];
      for (let i = 0; i + 1 < raw.length; i += 2) headers.push([raw[i]!, raw[i + 1]!]);
      // A HEAD's, a 204's, a 304's Content-Length names a body that never comes.
      const length = Number(res.headers["content-length"] ?? NaN);
      const declared = Number.isSafeInteger(length) && !answerHasNoBody(request.method, res.statusCode ?? 0);
      // A budget (a relay's) is charged as ./http1.ts charges it; node's chunks are its own: kept as views.
      const body = new AnswerBody(maxBody, options.budget, declared ? length : undefined);
      res.on("data", (chunk: Uint8Array) => body.add(chunk, true));
      res.on("error", fail);
      res.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const response: RawResponse = {
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? "",
          headers,
          ...body.finish(),
        };
        resolve(response);
      });
    });
    const timer = setTimeout(
      () => fail(new SendError("timeout", `no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on("error", fail);
    options.signal?.addEventListener("abort", () => fail(new SendError("other", "cancelled")), {
      once: true,
    });
    req.end(request.body ?? undefined);
  }).catch((error) => {
    throw error instanceof SendError ? error : classify(error, url, timeoutMs);
  });
}
