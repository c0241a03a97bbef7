/**
 * A node:http request as the handler's {@linkcode IncomingRequest}: the
 * method, the URL, the raw header list (arrival order, repeats, the
 * sender's case) and the body of any method, GET and HEAD included.
 * @module
 */
import type { IncomingMessage } from "node:http";
import { BodyBytes } from "../receiver/body.ts";
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

/**
 * Reads the whole body of `req` (node's own buffering; no web stream). The
 * first chunk is held as it is; from a second one on, chunks are copied into
 * blocks ({@linkcode BodyBytes}), so a body sent in many tiny pieces costs its
 * bytes, not an object per piece.
 */
function readAll(req: IncomingMessage): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    let first: Uint8Array | undefined;
    let kept: BodyBytes | undefined;
    let ended = false;
    req.on("data", (chunk: Uint8Array) => {
      if (kept !== undefined) kept.add(chunk);
      else if (first === undefined) first = chunk;
      else {
        kept = new BodyBytes();
        kept.add(first);
        kept.add(chunk);
        first = undefined;
      }
    });
    req.on("end", () => {
      ended = true;
      const bytes = kept?.bytes() ?? first ?? new Uint8Array(0);
      // An ArrayBuffer of exactly the body (a chunk or a block may be a view of a larger one).
      resolve(
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
          ? bytes.buffer as ArrayBuffer
          : bytes.slice().buffer,
      );
    });
    req.on("error", reject);
    req.on("close", () => {
      if (!ended) reject(new BodyAbortedError());
    });
  });
}

/** Bytes gathered from node before the stream stops taking more (pauses `req`) until the next read. */
const GATHER_MAX = 64 * 1024;

/**
 * The body as a web stream that starts reading only when first read (so
 * `arrayBuffer` can be used instead). node's chunks are gathered as they come
 * (flowing: node's paused mode buffers an object per chunk, and pausing and
 * resuming per chunk cost more than the chunk) into blocks of their bytes
 * ({@linkcode BodyBytes}), and each read takes what was gathered in one piece:
 * a body sent in many tiny chunks costs its bytes, never an object per piece.
 * `req` is paused while {@linkcode GATHER_MAX} bytes wait for a read.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let started = false;
  let ended = false;
  let paused = false;
  let failed: Error | undefined;
  let gathered: BodyBytes | undefined;
  let size = 0;
  let wake: (() => void) | undefined;
  const start = () => {
    started = true;
    req.on("data", (chunk: Uint8Array) => {
      (gathered ??= new BodyBytes()).add(chunk);
      size += chunk.length;
      if (size >= GATHER_MAX && !paused) {
        paused = true;
        req.pause();
      }
      wake?.();
    });
    req.on("end", () => {
      ended = true;
      wake?.();
    });
    req.on("error", (error) => {
      failed ??= error;
      wake?.();
    });
    req.on("close", () => {
      if (!ended) failed ??= new BodyAbortedError();
      wake?.();
    });
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) start();
      for (;;) {
        if (gathered !== undefined) {
          controller.enqueue(gathered.bytes());
          gathered = undefined;
          size = 0;
          if (paused) {
            paused = false;
            req.resume();
          }
          return;
        }
        if (failed !== undefined) throw failed;
        if (ended) {
          controller.close();
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
    cancel() {
      gathered = undefined;
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
