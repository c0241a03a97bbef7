/**
 * A store with varied events (JSON, form, binary, hostile text, provider
 * fields) and an inspector serving it, for the API and browser tests.
 * @module
 */
import type { DeliveryRecord } from "../../src/event/delivery.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { buildEvent, type CapturedEvent, eventLine } from "../../src/event/record.ts";
import { createLiveFeed, type LiveFeed } from "../../src/inspector/live.ts";
import { type Inspector, startInspector } from "../../src/inspector/server.ts";
import type { Resigner } from "../../src/inspector/api/replay.ts";
import { type StorePaths, storePaths } from "../../src/store/paths.ts";

/** Bytes of the binary event's body: every byte value, then a PNG-like header. */
export const BINARY = new Uint8Array([...Array.from({ length: 256 }, (_, i) => i), 0x89, 0x50, 0x4e, 0x47]);

/** A hostile payload: script tags, an onerror image, a javascript: URL, a bidi override. */
export const HOSTILE =
  `{"name":"<script>window.__pwned=1</script>","html":"</script><img src=x onerror=\\"window.__pwned=2\\">",` +
  `"url":"javascript:window.__pwned=3","file":"invoice\u202Egnp.exe","note":"<b>bold</b>"}`;

const enc = new TextEncoder();

/** The fixture's events, oldest first. */
export function fixtureEvents(count = 30): CapturedEvent[] {
  const newId = createIdFactory();
  const start = Date.now() - count * 60_000;
  const events: CapturedEvent[] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(start + i * 60_000);
    const kind = i % 5;
    const body = kind === 1
      ? enc.encode(`a=${i}&greeting=hello+world`)
      : kind === 2
      ? BINARY
      : kind === 3
      ? enc.encode(HOSTILE)
      : enc.encode(
        JSON.stringify({ n: i, action: i % 2 ? "opened" : "closed", nested: { deep: [1, 2, { x: i }] } }),
      );
    const event = buildEvent({
      id: newId(at),
      endpoint: i % 2 ? "github" : "stripe",
      receivedAt: at,
      method: i % 7 === 6 ? "PUT" : "POST",
      path: i % 2 ? "/hooks/github" : "/hooks/stripe",
      query: kind === 0 ? `n=${i}` : "",
      headers: [
        ["host", "localhost:8787"],
        [
          "content-type",
          kind === 1
            ? "application/x-www-form-urlencoded"
            : kind === 2
            ? "application/octet-stream"
            : "application/json",
        ],
        ["x-request-id", `req-${i}`],
        ["user-agent", i % 2 ? "GitHub-Hookshot/abc" : "Stripe/1.0"],
      ],
      body,
      remoteAddr: "127.0.0.1",
    });
    if (i % 4 === 0) event.forward = { to: "http://localhost:3000/webhook", mode: "queue" };
    if (i % 2) {
      event.provider = "github";
      event.type = i % 4 === 1 ? "push" : "pull_request";
      event.verdict = i % 3 === 0
        ? { status: "invalid", scheme: "github-sha256", reason: "the signature does not match the body" }
        : { status: "valid", scheme: "github-sha256" };
    }
    events.push(event);
  }
  return events;
}

/** A running inspector over a temp store holding `events`. */
export interface InspectorFixture extends AsyncDisposable {
  paths: StorePaths;
  dir: string;
  events: CapturedEvent[];
  inspector: Inspector;
  live: LiveFeed;
  /** Appends an event to the log and publishes it, as `dev` does. */
  add(event: CapturedEvent): Promise<void>;
  /** `fetch` with the session token (as a script holding the token file's value sends it). */
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

/** Starts an inspector (port 0) over a fresh store. */
export async function inspectorFixture(
  options: { events?: CapturedEvent[]; resign?: Resigner } = {},
): Promise<InspectorFixture> {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_inspector_" });
  const paths = storePaths(`${dir}/.hooktap`);
  await Deno.mkdir(paths.dir);
  const events = options.events ?? fixtureEvents();
  await Deno.writeTextFile(paths.events, events.map(eventLine).join(""));
  await Deno.writeTextFile(`${paths.dir}/deliveries.jsonl`, deliveryLines(events));
  const live = createLiveFeed();
  const inspector = startInspector({
    paths,
    port: 0,
    live,
    ...(options.resign ? { resign: options.resign } : {}),
  });
  return {
    paths,
    dir,
    events,
    inspector,
    live,
    fetch(url, init = {}) {
      const headers = new Headers(init.headers);
      headers.set("x-hooktap-token", inspector.token);
      return fetch(url, { ...init, headers });
    },
    async add(event) {
      await Deno.writeTextFile(paths.events, eventLine(event), { append: true });
      live.publish(event);
    },
    async [Symbol.asyncDispose]() {
      await inspector.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A new event after the fixture's, with `body`. */
export function newEvent(body: string, endpoint = "github"): CapturedEvent {
  const at = new Date();
  return buildEvent({
    id: createIdFactory()(at),
    endpoint,
    receivedAt: at,
    method: "POST",
    path: "/hooks/live",
    query: "",
    headers: [["host", "localhost:8787"], ["content-type", "application/json"]],
    body: enc.encode(body),
    remoteAddr: "127.0.0.1",
  });
}

/** A raw HTTP/1.1 GET over TCP with any `Host`, returning the status line. */
export async function rawGet(port: number, host: string, path = "/"): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(4096);
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    return new TextDecoder().decode(chunks[0] ?? new Uint8Array()).split("\r\n")[0]!;
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

/** A target server that records what it receives. */
export function targetServer(): Deno.HttpServer<Deno.NetAddr> & {
  received: { method: string; path: string; headers: Headers; body: Uint8Array }[];
  url: string;
} {
  const received: { method: string; path: string; headers: Headers; body: Uint8Array }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    received.push({
      method: request.method,
      path: new URL(request.url).pathname,
      headers: request.headers,
      body: new Uint8Array(await request.arrayBuffer()),
    });
    return new Response("target got it", { status: 202 });
  });
  return Object.assign(server, { received, url: `http://127.0.0.1:${server.addr.port}/target` });
}

/** Delivery records for the forwarded events: every 8th delivered at once, the others failed twice. */
export function deliveryLines(events: CapturedEvent[]): string {
  // v1 lines (target = the URL): the readers must keep reading them.
  const lines: (Omit<DeliveryRecord, "v" | "url"> & { v: 1 })[] = [];
  let n = 0;
  for (const [i, e] of events.entries()) {
    if (!e.forward || i === events.length - 1) continue;
    const outcomes: DeliveryRecord["outcome"][] = i % 8 === 0 ? ["delivered"] : ["retrying", "failed"];
    outcomes.forEach((outcome, k) => {
      const ok = outcome === "delivered";
      lines.push({
        v: 1,
        id: `dlv_${e.id.slice(4, 12)}_${String(n++).padStart(26, "0")}`,
        event: e.id,
        endpoint: e.endpoint,
        source: "forward",
        target: e.forward!.to,
        method: e.method,
        attempt: k + 1,
        startedAt: e.receivedAt,
        durationMs: 12,
        ...(ok
          ? {
            status: 200,
            statusText: "OK",
            body: '{"received":true}',
            bodyEncoding: "utf8" as const,
            bodySize: 17,
          }
          : { error: "connection refused: nothing listens on localhost:3000 (is your app running?)" }),
        outcome,
      });
    });
  }
  return lines.map((d) => JSON.stringify(d) + "\n").join("");
}
