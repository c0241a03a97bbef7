/**
 * A node:http request as the handler's {@linkcode IncomingRequest}: the
 * method, the URL, the raw header list (arrival order, repeats, the
 * sender's case) and the body of any method, GET and HEAD included.
 * @module
 */
import type { IncomingMessage } from "node:http";
import type { IncomingRequest } from "../receiver/request.ts";

/** The client went away before the body was complete. */
class BodyAbortedError extends Error {
  constructor() {
    super("the client closed the connection before the body was complete");
    this.name = "BodyAbortedError";
  }
}

function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

/** Reads the whole body of `req` (node's own buffering; no web stream). */
function readAll(req: IncomingMessage): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let ended = false;
    req.on("data", (chunk: Uint8Array) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on("end", () => {
      ended = true;
      const out = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      resolve(out.buffer);
    });
    req.on("error", reject);
    req.on("close", () => {
      if (!ended) reject(new BodyAbortedError());
    });
  });
}

/** The body as a web stream that starts reading only when first read (so `arrayBuffer` can be used instead). */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let started = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!started) {
        started = true;
        let ended = false;
        req.on("data", (chunk: Uint8Array) => {
          try {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          } catch {
            req.pause(); // cancelled
            return;
          }
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.on("end", () => {
          ended = true;
          controller.close();
        });
        req.on("error", (error) => controller.error(error));
        req.on("close", () => {
          if (!ended) controller.error(new BodyAbortedError());
        });
      }
      req.resume();
    },
    cancel() {
      req.pause();
    },
  }, { highWaterMark: 0 });
}

/** `req` as the handler reads it; `origin` is `http://host:port` of the listener. */
export function nodeRequest(req: IncomingMessage, origin: string): IncomingRequest {
  const target = req.url ?? "/";
  const url = target.startsWith("/") ? origin + target : /^https?:\/\//i.test(target) ? target : origin + "/";
  const hasBody = (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0") ||
    req.headers["transfer-encoding"] !== undefined;
  let headers: Headers | undefined;
  let body: ReadableStream<Uint8Array> | null | undefined;
  const rawHeaders = pairs(req.rawHeaders);
  return {
    method: req.method ?? "GET",
    url,
    rawHeaders,
    get headers() {
      if (headers === undefined) {
        headers = new Headers();
        for (const [name, value] of rawHeaders) {
          try {
            headers.append(name, value);
          } catch { /* a value Headers refuses: it stays in rawHeaders */ }
        }
      }
      return headers;
    },
    get body() {
      if (body === undefined) {
        body = hasBody ? bodyStream(req) : null;
      }
      return body;
    },
    arrayBuffer: () => readAll(req),
  };
}
