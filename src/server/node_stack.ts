/**
 * The node:http stack: reads the body of every method (GET and HEAD
 * included) and the raw header list; slower than Deno.serve, so `listen`
 * uses it only when the config needs it (src/server/stack.ts).
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Handler } from "../receiver/handler.ts";
import { nodeRequest } from "./node_request.ts";
import type { ServingStack, StackOptions } from "./_types.ts";

async function send(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body === null ? new Uint8Array(0) : new Uint8Array(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  res.setHeader("content-length", body.length);
  res.end(body);
}

/** Serves `handler` with node:http. Rejects with node's error when the port cannot be bound. */
export function serveNode(handler: Handler, options: StackOptions): Promise<ServingStack> {
  const { cutOff, budget, stall } = options;
  let origin = "http://localhost";
  // Per connection, the answer still being made: a parse error in what follows it (pipelined
  // garbage) must not overtake it.
  const answering = new WeakMap<object, { req: IncomingMessage; done: Promise<void> }>();
  const server = createServer({ keepAliveTimeout: 5000 }, (req: IncomingMessage, res: ServerResponse) => {
    const remoteAddr: Deno.NetAddr = {
      transport: "tcp",
      hostname: req.socket.remoteAddress ?? "",
      port: req.socket.remotePort ?? 0,
    };
    const done = handler(nodeRequest(req, origin), { remoteAddr, cutOff, budget, stall })
      .catch((error) => {
        options.onError?.(error);
        return new Response(options.errorMessage, { status: 500 });
      })
      .then((response) => send(res, response))
      .catch(() => void res.destroy()); // the client is gone
    answering.set(req.socket, { req, done });
  });
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
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    } else socket.destroy();
  });
  const finished = new Promise<void>((resolve) => server.once("close", () => resolve()));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      const addr = server.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : options.port;
      const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
      origin = `http://${host}:${port}`;
      resolve({
        port,
        hostname: options.hostname,
        close() {
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
