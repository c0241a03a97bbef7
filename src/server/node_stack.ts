/**
 * The node:http stack: reads the body of every method (GET and HEAD
 * included) and the raw header list; slower than Deno.serve, so `listen`
 * uses it only when the config needs it (src/server/stack.ts).
 *
 * Limits: node's header and keep-alive timeouts, a socket inactivity
 * timeout, and `maxConnections` (the excess is closed at once). Deno's
 * node:http stops accepting for good after an accept error (`EMFILE`, out
 * of descriptors) without a word; a watchdog notices (a loopback connection
 * that is never accepted) and listens again on the same port.
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Handler, RequestInfo } from "../receiver/handler.ts";
import { nodeRequest } from "./node_request.ts";
import type { ServingStack, StackOptions } from "./_types.ts";

/**
 * Writes `response` with one `writeHead` (a flat header list: no per-header
 * `setHeader` bookkeeping) and one `end`. The body is taken with `bytes()`
 * without touching `response.body`, so a string body is encoded once and
 * never wrapped in a web stream.
 */
async function send(res: ServerResponse, response: Response, head = false): Promise<void> {
  const body = await response.bytes();
  const flat: string[] = [];
  response.headers.forEach((value, name) => {
    if (name !== "content-length") flat.push(name, value);
  });
  // A HEAD's answer has no body; its Content-Length, when given (a relayed app's), is what a GET would get.
  const given = head && body.length === 0 ? response.headers.get("content-length") : null;
  flat.push("content-length", given ?? String(body.length));
  res.writeHead(response.status, flat);
  res.end(body);
}

/** Serves `handler` with node:http. Rejects with node's error when the port cannot be bound. */
export function serveNode(handler: Handler, options: StackOptions): Promise<ServingStack> {
  const { cutOff, budget, stall } = options;
  let origin = "http://localhost";
  // Per connection, the answer still being made: a parse error in what follows it (pipelined
  // garbage) must not overtake it.
  const answering = new WeakMap<object, { req: IncomingMessage; done: Promise<void> }>();
  const { limits } = options;
  // What the handler is told besides the request: the same for every request of a connection.
  const infoOf = new WeakMap<Socket, RequestInfo>();
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    let info = infoOf.get(socket);
    if (info === undefined) {
      const remoteAddr: Deno.NetAddr = {
        transport: "tcp",
        hostname: socket.remoteAddress ?? "",
        port: socket.remotePort ?? 0,
      };
      info = { remoteAddr, cutOff, budget, stall };
      infoOf.set(socket, info);
    }
    let response: Response;
    try {
      response = await handler(nodeRequest(req, origin), info);
    } catch (error) {
      options.onError?.(error);
      response = new Response(options.errorMessage, { status: 500 });
    }
    try {
      await send(res, response, req.method === "HEAD");
    } catch {
      res.destroy(); // the client is gone
    }
    // Not kept past its answer: held by the connection, the finished request (its streams, headers and
    // body) would stay reachable until the connection's next request.
    if (answering.get(socket)?.req === req) answering.delete(socket);
  };
  const server = createServer(
    { keepAliveTimeout: limits.keepAliveTimeoutMs },
    (req: IncomingMessage, res: ServerResponse) => {
      answering.set(req.socket, { req, done: answer(req, res) });
    },
  );
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    const pending = answering.get(socket);
    if (pending?.req.complete) {
      // Bytes after a whole request that are not a request: answer that request, then close.
      pending.done.finally(() => socket.end());
      return;
    }
    // A request node:http cannot parse: answer 400 as Deno.serve does, when the socket still takes it.
    if (socket.writable && error.code !== "ECONNRESET") {
      const status = error.code === "HPE_HEADER_OVERFLOW"
        ? "431 Request Header Fields Too Large"
        : "400 Bad Request";
      options.onNotice?.(
        `Answered ${status} to a request node:http cannot parse (${error.code ?? "no code"}).`,
      );
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    } else socket.destroy();
  });
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = 0; // a large upload may take long; stalls are cut by the inactivity timeouts
  server.maxConnections = limits.maxConnections;
  // A new connection that sends no bytes for longer than both bounds is destroyed (node's headersTimeout
  // starts only with the first byte). Set per socket, not with `server.setTimeout`: with a server timeout,
  // node:http replaces the socket's timer twice per request (the request's, then keep-alive's); without
  // one it suspends and resumes a single keep-alive timer. Later on, partial headers are cut by
  // headersTimeout, a silent keep-alive connection by keepAliveTimeout, a stalled body by the reader's
  // watch (408).
  const idle = Math.max(limits.headersTimeoutMs, limits.bodyTimeoutMs) + 1000;
  if (limits.headersTimeoutMs > 0 && limits.bodyTimeoutMs > 0) {
    server.on("connection", (socket: Socket) => socket.setTimeout(idle));
  }
  let closing = false;
  let stopWatch = () => {};
  const finished = new Promise<void>((resolve) => {
    const onClose = () => {
      if (closing) resolve();
      else server.once("close", onClose); // a restart by the watchdog
    };
    server.once("close", onClose);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      const addr = server.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : options.port;
      const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
      origin = `http://${host}:${port}`;
      stopWatch = watchAccept(server, options, port);
      resolve({
        port,
        hostname: options.hostname,
        close() {
          closing = true;
          stopWatch();
          server.close();
          server.closeIdleConnections();
          // Requests still open have had their drain: close what remains.
          setTimeout(() => server.closeAllConnections(), 100);
          return finished;
        },
        finished,
      });
    });
  });
}

/**
 * Every few seconds without a new connection, connects to the server itself;
 * when that connection is never accepted, the accept loop is dead (Deno's
 * node:http after `EMFILE`): closes the listener and listens again on the
 * same port, backing off while descriptors are still short.
 * @returns a function that stops the watch.
 */
function watchAccept(server: Server, options: StackOptions, port: number): () => void {
  let lastAccept = performance.now();
  let stopped = false;
  let busy = false;
  server.on("connection", () => (lastAccept = performance.now()));
  const host = options.hostname === "0.0.0.0" || options.hostname === "::" ? "127.0.0.1" : options.hostname;
  const relisten = async () => {
    options.onNotice?.("The receiver stopped accepting connections (out of descriptors?); listening again.");
    server.close();
    for (let delay = 50; !stopped; delay = Math.min(delay * 2, 1000)) {
      const ok = await new Promise<boolean>((resolve) => {
        const fail = () => resolve(false);
        server.once("error", fail);
        server.listen(port, options.hostname, () => {
          server.off("error", fail);
          resolve(true);
        });
      });
      if (ok) return;
      await new Promise((r) => setTimeout(r, delay));
    }
  };
  const check = async () => {
    if (stopped || busy || performance.now() - lastAccept < 2000) return;
    busy = true;
    const before = lastAccept;
    let conn: Deno.TcpConn | undefined;
    try {
      conn = await Deno.connect({ hostname: host, port });
      for (let i = 0; i < 20 && lastAccept === before && !stopped; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      if (lastAccept === before && !stopped) await relisten();
    } catch {
      // No descriptor for the probe itself: the flood is still on; look again later.
    } finally {
      try {
        conn?.close();
      } catch { /* closed */ }
      busy = false;
    }
  };
  const timer = setInterval(check, 2000);
  Deno.unrefTimer(timer);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
