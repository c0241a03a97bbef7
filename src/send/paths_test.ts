/**
 * The table test of issue 22: the same stored requests go through every send
 * path (forward, replay engine as `replay ID` / bulk / `--undelivered` use
 * it, the inspector's replay, the library's `forwardEvent` and
 * `replayEvent`) to a raw TCP server that keeps the exact bytes, and to the
 * providers' own libraries; bytes, header lists and verdicts must agree.
 */
import assert from "node:assert/strict";
import Stripe from "stripe";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { buildEvent, type CapturedEvent } from "../event/record.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import type { Endpoint } from "../config/types.ts";
import { replayFromApi } from "../inspector/api/replay.ts";
import { replayEvent } from "../testing/replay_event.ts";
import { forwardEvent } from "./forward_event.ts";
import { createForwarder } from "./forwarder.ts";
import { resendEach } from "./resend.ts";
import { resignerFor } from "./resigner.ts";
import { resignWhenStale } from "./resign_stale.ts";
import type { ForwardTarget } from "./target.ts";
import { closeIdleConnections } from "./client.ts";

const STRIPE_SECRET = "whsec_stripe_table_test";
const SW_SECRET = "whsec_" + btoa("standard-webhooks-table-secret");
const HOUR_AGO = new Date(Date.now() - 3_600_000);
const T = Math.floor(HOUR_AGO.getTime() / 1000);

/** A request as the raw server read it. */
interface Raw {
  head: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** A plain TCP server on port 0 that keeps each request's bytes and answers 200. */
function rawServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const got: Raw[] = [];
  const serve = async (conn: Deno.Conn) => {
    let buf: Uint8Array = new Uint8Array(0);
    const chunk = new Uint8Array(65536);
    try {
      while (true) {
        let end = -1;
        while ((end = indexOf(buf, [13, 10, 13, 10])) === -1) {
          const n = await conn.read(chunk);
          if (n === null) return;
          buf = concat(buf, chunk.subarray(0, n));
        }
        const head = new TextDecoder("latin1").decode(buf.subarray(0, end));
        const lines = head.split("\r\n");
        const headers = lines.slice(1).map((l): [string, string] => {
          const i = l.indexOf(":");
          return [l.slice(0, i), l.slice(i + 1).trim()];
        });
        const length = Number(headers.find(([n]) => n.toLowerCase() === "content-length")?.[1] ?? 0);
        while (buf.length < end + 4 + length) {
          const n = await conn.read(chunk);
          if (n === null) return;
          buf = concat(buf, chunk.subarray(0, n));
        }
        // Each path has its own server: its port in Host is the one expected difference.
        if (headers[0]?.[0] === "Host") headers[0] = ["Host", "127.0.0.1:PORT"];
        got.push({ head: lines[0]!, headers, body: buf.slice(end + 4, end + 4 + length) });
        buf = buf.slice(end + 4 + length);
        await conn.write(new TextEncoder().encode("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"));
      }
    } catch {
      /* closed */
    } finally {
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const conns: Promise<void>[] = [];
  (async () => {
    try {
      for await (const conn of listener) conns.push(serve(conn));
    } catch { /* closed */ }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    got,
    async close() {
      listener.close();
      closeIdleConnections();
      await Promise.allSettled(conns);
    },
  };
}

function indexOf(hay: Uint8Array, needle: number[]): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function stored(
  n: number,
  headers: [string, string][],
  body: Uint8Array,
  extra: Partial<CapturedEvent> = {},
): CapturedEvent {
  const e = buildEvent({
    id: `evt_20260101_01J00000000000000000000T${n}`,
    endpoint: extra.endpoint ?? "hook",
    receivedAt: HOUR_AGO,
    method: "POST",
    path: "/hook",
    query: "",
    headers,
    body,
    remoteAddr: "127.0.0.1",
  });
  return { ...e, ...extra };
}

const enc = (s: string) => new TextEncoder().encode(s);
const stripeBody = '{"id":"evt_1","type":"invoice.paid"}';
const swBody = '{"type":"user.created","data":{}}';

async function stripeSig(body: string, t: number): Promise<string> {
  return await new Stripe("sk_test_x").webhooks.generateTestHeaderStringAsync({
    payload: body,
    secret: STRIPE_SECRET,
    timestamp: t,
  });
}

const EVENTS: CapturedEvent[] = [
  // Repeated headers in mixed case, Cookie twice, odd spacing.
  stored(1, [
    ["Content-Type", "application/json"],
    ["X-Multi", "1"],
    ["x-MULTI", " two  spaced "],
    ["Cookie", "a=1"],
    ["cookie", "b=2"],
    ["X-Odd", "a ,  b"],
    ["Content-Length", "8"],
  ], enc('{"a": 1}')),
  // A binary body, no Content-Length stored (the sender chunked).
  stored(
    2,
    [["content-type", "application/octet-stream"], ["Transfer-Encoding", "chunked"]],
    new Uint8Array([0, 255, 13, 10, 128]),
  ),
  // A stale Stripe signature.
  stored(
    3,
    [["Content-Type", "application/json"], ["Stripe-Signature", await stripeSig(stripeBody, T)]],
    enc(stripeBody),
    {
      provider: "stripe",
      endpoint: "stripe",
    },
  ),
  // A stale Standard Webhooks signature.
  stored(
    4,
    [
      ["webhook-id", "msg_1"],
      ["webhook-timestamp", String(T)],
      ["webhook-signature", new StandardWebhook(SW_SECRET).sign("msg_1", HOUR_AGO, swBody)],
      ["Content-Type", "application/json"],
    ],
    enc(swBody),
    { provider: "standard-webhooks", endpoint: "sw" },
  ),
];

const ENDPOINTS = [
  { name: "hook", signing: { secrets: [], tolerance: 300, enforce: false } },
  { name: "stripe", signing: { secrets: [STRIPE_SECRET], tolerance: 300, enforce: false } },
  { name: "sw", signing: { secrets: [SW_SECRET], tolerance: 300, enforce: false } },
] as unknown as Endpoint[];

type Path = (events: CapturedEvent[], to: string, resign: boolean) => Promise<void>;

const PATHS: Record<string, Path> = {
  async forward(events, to, resign) {
    const records: DeliveryRecord[] = [];
    const forwarder = createForwarder({
      log: { append: (r) => Promise.resolve(void records.push(r)), newId: () => "dlv_x" },
      ...(resign ? { prepare: resignWhenStale(() => ENDPOINTS) } : {}),
    });
    const target: ForwardTarget = {
      name: "app",
      to,
      mode: "queue",
      timeoutMs: 5000,
      concurrency: 1,
      order: "arrival",
      attempts: 1,
      backoffMs: [10],
      insecure: false,
    };
    for (const e of events) forwarder.enqueue(e, target);
    await forwarder.idle();
    await forwarder.stop();
  },
  async replay(events, to, resign) {
    await resendEach(events, {
      targetOf: () => ({ name: "app", to }),
      resign,
      settingsOf: (name) => ENDPOINTS.find((e) => e.name === name)?.signing,
    });
  },
  async inspector(events, to, resign) {
    for (const e of events) await replayFromApi(e, { to, resign }, { resign: resignerFor(ENDPOINTS) });
  },
  async library(events, to, resign) {
    for (const e of events) {
      if (!resign) await forwardEvent(e, to);
      else {
        const secret = e.endpoint === "stripe" ? STRIPE_SECRET : SW_SECRET;
        await replayEvent(e, { to, resign: { secret, provider: e.provider! } });
      }
    }
  },
};

const SIGNATURE = /^(stripe-signature|webhook-signature|webhook-timestamp|host)$/i;
/** The header list with fresh signature values masked (they hold the time of sending). */
const masked = (h: [string, string][]) =>
  h.map(([n, v]): [string, string] => [n, SIGNATURE.test(n) ? "*" : v]);

Deno.test("every send path sends the same bytes and header list for the same stored requests", async () => {
  const results: Record<string, Raw[]> = {};
  for (const [name, send] of Object.entries(PATHS)) {
    const server = rawServer();
    try {
      await send(EVENTS.slice(0, 2), server.url + "/app", false);
    } finally {
      await server.close();
    }
    results[name] = server.got;
  }
  const reference = results.forward!;
  assert.equal(reference.length, 2);
  // Exactly the stored headers (case, order, repeats, spacing trimmed by HTTP), Host first, nothing added.
  assert.deepEqual(reference[0]!.headers, [
    ["Host", "127.0.0.1:PORT"],
    ["Content-Type", "application/json"],
    ["X-Multi", "1"],
    ["x-MULTI", "two  spaced"],
    ["Cookie", "a=1"],
    ["cookie", "b=2"],
    ["X-Odd", "a ,  b"],
    ["Content-Length", "8"],
  ]);
  assert.deepEqual(reference[1]!.body, new Uint8Array([0, 255, 13, 10, 128]));
  assert.deepEqual(reference[1]!.headers.map(([n]) => n), ["Host", "content-type", "Content-Length"]);
  for (const [name, got] of Object.entries(results)) {
    assert.deepEqual(got, reference, `${name} differs from forward`);
  }
});

Deno.test("a stale Stripe or Standard Webhooks signature resent with --resign by any path passes the provider's library", async () => {
  const stripe = new Stripe("sk_test_x");
  const sw = new StandardWebhook(SW_SECRET);
  const lists: Record<string, [string, string][][]> = {};
  for (const [name, send] of Object.entries(PATHS)) {
    const server = rawServer();
    try {
      await send(EVENTS.slice(2), server.url + "/app", true);
    } finally {
      await server.close();
    }
    assert.equal(server.got.length, 2, name);
    const [s, w] = server.got as [Raw, Raw];
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    const sig = s.headers.find(([n]) => n.toLowerCase() === "stripe-signature")![1];
    await stripe.webhooks.constructEventAsync(text(s.body), sig, STRIPE_SECRET); // throws when refused
    sw.verify(text(w.body), Object.fromEntries(w.headers.map(([n, v]) => [n.toLowerCase(), v])));
    lists[name] = [masked(s.headers), masked(w.headers)];
  }
  // The stored ones fail: the libraries refuse the hour-old signatures.
  const stale = EVENTS[2]!.headers.find(([n]) => n === "Stripe-Signature")![1];
  await assert.rejects(stripe.webhooks.constructEventAsync(stripeBody, stale, STRIPE_SECRET));
  // Same names, order and case on every path: the fresh signature takes the stored one's place.
  for (const [name, list] of Object.entries(lists)) assert.deepEqual(list, lists.forward, name);
  assert.deepEqual(lists.forward![0]!.map(([n]) => n), [
    "Host",
    "Content-Type",
    "Stripe-Signature",
    "Content-Length",
  ]);
});
