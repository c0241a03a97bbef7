import assert from "node:assert/strict";
import { buildEvent, eventLine } from "../event/record.ts";
import { createIdFactory } from "../event/id.ts";
import { storePaths } from "../store/paths.ts";
import { storeBacklog } from "./backlog.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import { closeIdleConnections } from "./client.ts";
import { createForwarder, Fifo } from "./forwarder.ts";
import { RelayBudget } from "./relay_budget.ts";
import type { ForwardTarget } from "./target.ts";

const EVENT = buildEvent({
  id: "evt_20260101_01J000000000000000000PROBE",
  endpoint: "hook",
  receivedAt: new Date(),
  method: "POST",
  path: "/hook",
  query: "",
  headers: [["Content-Type", "text/plain"]],
  body: new TextEncoder().encode("hi"),
  remoteAddr: "127.0.0.1",
});

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Rejects when `p` has not settled after `ms`: the scheduled retry is an hour away, so only the check can end it. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms))),
  ]);
}

Deno.test("a retry waiting after no answer is sent once the target accepts connections again, and early attempts without an answer use up no retry", async () => {
  const port = freePort();
  const records: DeliveryRecord[] = [];
  const forwarder = createForwarder({
    log: { append: (r) => Promise.resolve(void records.push(r)), newId: () => `dlv_${records.length}` },
    probeMs: 50,
  });
  const target: ForwardTarget = {
    name: "app",
    to: `http://127.0.0.1:${port}/in`,
    mode: "queue",
    timeoutMs: 2000,
    concurrency: 1,
    order: "arrival",
    attempts: 2, // one retry only: the early attempts that get no answer must not spend it
    backoffMs: [3_600_000],
    insecure: false,
  };
  forwarder.enqueue(EVENT, target);
  while (records.length === 0) await new Promise((r) => setTimeout(r, 10));
  assert.equal(records[0]!.outcome, "retrying"); // refused: nothing listens
  // The port opens, but the first two connections are closed without an answer (a dev server compiling).
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  let requests = 0;
  const conns: Promise<void>[] = [];
  const handle = async (conn: Deno.Conn) => {
    try {
      const n = await conn.read(new Uint8Array(4096));
      if (n === null) return; // the connect check
      if (++requests <= 2) return; // closed without an answer
      await conn.write(
        new TextEncoder().encode("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"),
      );
    } catch {
      /* closed */
    } finally {
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const served = (async () => {
    try {
      for await (const conn of listener) conns.push(handle(conn));
    } catch { /* closed */ }
  })();
  try {
    await within(forwarder.idle(), 30_000, "the waiting retry was not sent when the app came back");
  } finally {
    listener.close();
    await served;
    await Promise.allSettled(conns);
    await forwarder.stop();
    closeIdleConnections();
  }
  const last = records[records.length - 1]!;
  assert.equal(last.outcome, "delivered");
  assert.equal(last.status, 200);
  assert.ok(records.length >= 3, "the early attempts without an answer are recorded");
});

Deno.test("a connection closed without an answer: the retry waits its backoff until the app restarts (refused, then accepting)", async () => {
  const port = freePort();
  const records: DeliveryRecord[] = [];
  const forwarder = createForwarder({
    log: { append: (r) => Promise.resolve(void records.push(r)), newId: () => `dlv_${records.length}` },
    probeMs: 50,
  });
  const target: ForwardTarget = {
    name: "app",
    to: `http://127.0.0.1:${port}/in`,
    mode: "queue",
    timeoutMs: 2000,
    concurrency: 1,
    order: "arrival",
    attempts: 3,
    backoffMs: [3_600_000],
    insecure: false,
  };
  /** An app on `port`: `answer` false closes each request's connection unanswered (a crashing handler). */
  const serve = (answer: boolean) => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port });
    const conns: Promise<void>[] = [];
    const served = (async () => {
      try {
        for await (const conn of listener) {
          conns.push((async () => {
            try {
              const n = await conn.read(new Uint8Array(4096));
              if (n !== null && answer) {
                await conn.write(
                  new TextEncoder().encode(
                    "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                  ),
                );
              }
            } catch { /* closed */ }
            try {
              conn.close();
            } catch { /* closed */ }
          })());
        }
      } catch { /* closed */ }
    })();
    return async () => {
      listener.close();
      await served;
      await Promise.allSettled(conns);
    };
  };
  let close = serve(false);
  try {
    forwarder.enqueue(EVENT, target);
    while (records.length === 0) await new Promise((r) => setTimeout(r, 10));
    assert.equal(records[0]!.outcome, "retrying");
    assert.equal(records[0]!.retrySooner, true);
    // It accepts connections all along: the connect checks (every 50 ms) do not end the hour's wait.
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(records.length, 1, "no retry while the app only accepts and drops");
    // It restarts: refused for a while, then it listens (and answers).
    await close();
    await new Promise((r) => setTimeout(r, 300));
    close = serve(true);
    await within(forwarder.idle(), 10_000, "the retry did not go when the app restarted");
  } finally {
    await close();
    await forwarder.stop();
    closeIdleConnections();
  }
  assert.deepEqual(records.map((r) => [r.attempt, r.outcome]), [[1, "retrying"], [2, "delivered"]]);
});

Deno.test("a queue thousands long (the app slower than the sender): every event delivered once with its own bytes, and every attempt logged", async () => {
  const got = new Map<string, number>();
  let bad = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.text();
    const id = req.headers.get("x-id") ?? "";
    if (body !== `body of ${id}` || req.headers.get("content-type") !== "text/plain") bad++;
    got.set(id, (got.get(id) ?? 0) + 1);
    return new Response("ok");
  });
  const records: DeliveryRecord[] = [];
  const forwarder = createForwarder({
    log: { append: (r) => Promise.resolve(void records.push(r)), newId: () => `dlv_${records.length}` },
  });
  const target: ForwardTarget = {
    name: "app",
    to: `http://127.0.0.1:${server.addr.port}/in`,
    mode: "queue",
    timeoutMs: 10_000,
    concurrency: 8,
    order: "parallel",
    attempts: 3,
    backoffMs: [10],
    insecure: false,
  };
  const n = 3000; // past the queue's compaction point (1024 taken from its head)
  const ids: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const id = `evt_20260101_01J${String(i).padStart(23, "0")}`;
      ids.push(id);
      forwarder.enqueue(
        buildEvent({
          id,
          endpoint: "hook",
          receivedAt: new Date(),
          method: "POST",
          path: "/hook",
          query: "",
          headers: [["Content-Type", "text/plain"], ["X-Id", id]],
          body: new TextEncoder().encode(`body of ${id}`),
          remoteAddr: "127.0.0.1",
        }),
        target,
      );
    }
    assert.equal(forwarder.pending, n);
    await forwarder.idle();
  } finally {
    await forwarder.stop();
    closeIdleConnections();
    await server.shutdown();
  }
  assert.equal(bad, 0);
  assert.deepEqual([...got.keys()].sort(), ids);
  assert.ok([...got.values()].every((c) => c === 1));
  assert.equal(records.length, n);
  assert.ok(records.every((r) => r.outcome === "delivered" && r.status === 200));
  assert.deepEqual(records.map((r) => r.event).sort(), ids);
});

Deno.test("Fifo: first in, first out across its compactions; peek, length, drain", () => {
  const q = new Fifo<number>();
  assert.equal(q.shift(), undefined);
  let next = 0;
  let expect = 0;
  // Interleaved pushes and shifts, the queue long enough to be compacted many times.
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 300; i++) q.push(next++);
    for (let i = 0; i < 200; i++) {
      assert.equal(q.peek(), expect);
      assert.equal(q.shift(), expect++);
    }
    assert.equal(q.length, next - expect);
  }
  assert.deepEqual(q.drain(), Array.from({ length: next - expect }, (_, i) => expect + i));
  assert.equal(q.length, 0);
  assert.equal(q.peek(), undefined);
  q.push(7);
  assert.equal(q.shift(), 7);
  assert.equal(q.length, 0);
});

Deno.test("past its window a lane reads the store back: every event once, in order, never more than the window in memory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_backlog_" });
  const paths = storePaths(dir);
  const ids = createIdFactory();
  const events = Array.from({ length: 60 }, (_, i) => {
    const event = buildEvent({
      id: ids(new Date()),
      endpoint: i % 3 === 2 ? "other" : "hook", // another endpoint's lines are passed over
      receivedAt: new Date(),
      method: "POST",
      path: "/hook",
      query: "",
      headers: [["x-n", String(i)]],
      body: new TextEncoder().encode(`{"n":${i}}`),
      remoteAddr: "127.0.0.1",
    });
    event.forward = { to: "http://x/", mode: "queue" };
    return event;
  });
  await Deno.writeTextFile(paths.events, events.map(eventLine).join(""));
  const seen: number[] = [];
  let peak = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    seen.push(Number(req.headers.get("x-n")));
    peak = Math.max(peak, forwarder.inMemory);
    await new Promise((r) => setTimeout(r, 2));
    return new Response(null, { status: 204 });
  });
  const pins: string[] = [];
  const forwarder = createForwarder({
    log: { append: () => Promise.resolve(), newId: () => "dlv_x" },
    backlog: storeBacklog(paths),
    window: 4,
    onPin: (id) => pins.push(id),
  });
  const target: ForwardTarget = {
    name: "app",
    endpoint: "hook",
    to: `http://127.0.0.1:${server.addr.port}/in`,
    mode: "queue",
    timeoutMs: 2000,
    concurrency: 1,
    order: "arrival",
    attempts: 1,
    backoffMs: [10],
    insecure: false,
  };
  try {
    const taken = events.filter((e) => e.endpoint === "hook").map((e) => forwarder.enqueue(e, target));
    assert.deepEqual(taken.slice(0, 4), [true, true, true, true]);
    assert.ok(taken.slice(4).every((t) => t === false), "past the window they stay in the store");
    await within(forwarder.idle(), 20_000, "the backlog was not delivered");
    const sent = events.map((_, i) => i).filter((i) => i % 3 !== 2);
    assert.deepEqual(seen, sent, "every event once, in order");
    assert.ok(peak <= 4, `at most the window in memory, saw ${peak}`);
    assert.equal(
      pins[0],
      events.filter((e) => e.endpoint === "hook")[4]!.id,
      "pinned at the first not in memory",
    );
  } finally {
    await forwarder.stop();
    closeIdleConnections();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an event read back before its own enqueue (stored first, enqueued after) is delivered once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_backlog_" });
  const paths = storePaths(dir);
  const ids = createIdFactory();
  const events = [0, 1, 2].map((i) => {
    const event = buildEvent({
      id: ids(new Date()),
      endpoint: "hook",
      receivedAt: new Date(),
      method: "POST",
      path: "/hook",
      query: "",
      headers: [["x-n", String(i)]],
      body: new TextEncoder().encode(`{"n":${i}}`),
      remoteAddr: "127.0.0.1",
    });
    event.forward = { to: "http://x/", mode: "queue" };
    return event;
  });
  await Deno.writeTextFile(paths.events, events.map(eventLine).join(""));
  const seen: number[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    seen.push(Number(req.headers.get("x-n")));
    return new Response(null, { status: 204 });
  });
  const forwarder = createForwarder({
    log: { append: () => Promise.resolve(), newId: () => "dlv_x" },
    backlog: storeBacklog(paths),
    window: 1,
  });
  const target: ForwardTarget = {
    name: "app",
    endpoint: "hook",
    to: `http://127.0.0.1:${server.addr.port}/in`,
    mode: "queue",
    timeoutMs: 2000,
    concurrency: 1,
    order: "arrival",
    attempts: 1,
    backoffMs: [10],
    insecure: false,
  };
  try {
    assert.equal(forwarder.enqueue(events[0]!, target), true);
    assert.equal(forwarder.enqueue(events[1]!, target), false); // past the window: read back from the store
    // The read-back finds event 2 in the store too (its write is done, its enqueue not yet) and sends it.
    await within(forwarder.idle(), 10_000, "the read-back did not finish");
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(seen, [0, 1, 2]);
    forwarder.enqueue(events[2]!, target); // its enqueue comes now: already taken
    await within(forwarder.idle(), 10_000, "not idle");
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(seen, [0, 1, 2], "event 2 once");
  } finally {
    await forwarder.stop();
    closeIdleConnections();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

/** An app on loopback that holds every request until `release()` (then answers 200), counting them. */
function holdingApp() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let seen = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    seen++;
    await released;
    return new Response(null, { status: 200 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/in`,
    get seen() {
      return seen;
    },
    async close() {
      release();
      await server.shutdown();
    },
  };
}

function targetTo(to: string, mode: "queue" | "relay" = "queue"): ForwardTarget {
  return {
    name: "app",
    endpoint: "hook",
    to,
    mode,
    timeoutMs: 10_000,
    concurrency: 1,
    order: "arrival",
    attempts: 1,
    backoffMs: [10],
    insecure: false,
  };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("stop() reports an attempt still in flight when the grace ends as abandoned (queued and relayed), none when it ended in time", async () => {
  for (const mode of ["queue", "relay"] as const) {
    const app = holdingApp();
    const records: DeliveryRecord[] = [];
    const forwarder = createForwarder({
      log: { append: (r) => Promise.resolve(void records.push(r)), newId: () => `dlv_${records.length}` },
    });
    const target = targetTo(app.url, mode);
    const relayed = mode === "relay" ? forwarder.relay(EVENT, target) : undefined;
    if (mode === "queue") forwarder.enqueue(EVENT, target);
    try {
      await waitFor(() => app.seen === 1, "the attempt in flight");
      assert.deepEqual(await forwarder.stop(50), { abandoned: 1, unrecorded: 0 }, mode);
      assert.equal(records.length, 0);
    } finally {
      await app.close();
      await relayed;
      await waitFor(() => records.length === 1, "the late record"); // the log of this test still takes it
      closeIdleConnections();
    }
  }
  // The same attempt answered within the grace: recorded, nothing abandoned.
  const app = holdingApp();
  const records: DeliveryRecord[] = [];
  const forwarder = createForwarder({
    log: { append: (r) => Promise.resolve(void records.push(r)), newId: () => `dlv_${records.length}` },
  });
  forwarder.enqueue(EVENT, targetTo(app.url));
  try {
    await waitFor(() => app.seen === 1, "the attempt in flight");
    const stopping = forwarder.stop(5000);
    setTimeout(() => app.close(), 50);
    assert.deepEqual(await stopping, { abandoned: 0, unrecorded: 0 });
    assert.deepEqual(records.map((r) => r.outcome), ["delivered"]);
  } finally {
    await app.close();
    closeIdleConnections();
  }
});

Deno.test("stop() reports attempts whose record could not be written", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("ok"));
  const errors: unknown[] = [];
  const forwarder = createForwarder({
    log: { append: () => Promise.reject(new Error("disk full")), newId: () => "dlv_x" },
    onError: (error) => void errors.push(error),
  });
  try {
    forwarder.enqueue(EVENT, targetTo(`http://127.0.0.1:${server.addr.port}/in`));
    await waitFor(() => errors.length === 1, "the failed append");
    assert.deepEqual(await forwarder.stop(1000), { abandoned: 0, unrecorded: 1 });
  } finally {
    closeIdleConnections();
    await server.shutdown();
  }
});

Deno.test({
  name: "a relayed answer whose status line Response refuses (a control byte in its reason) is passed on, " +
    "and its share of the relay budget given back",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // A raw app: Deno.serve cannot write such a status line.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const serving = (async () => {
      for await (const conn of listener) {
        (async () => {
          await conn.read(new Uint8Array(64 * 1024));
          await conn.write(new TextEncoder().encode("HTTP/1.1 200 O\x01K\r\ncontent-length: 5\r\n\r\nhello"));
          conn.close();
        })().catch(() => {});
      }
    })().catch(() => {});
    const budget = new RelayBudget(1024);
    const records: DeliveryRecord[] = [];
    const forwarder = createForwarder({
      log: { append: (r) => Promise.resolve(void records.push(r)), newId: () => `dlv_${records.length}` },
      relayBudget: budget,
    });
    try {
      const port = (listener.addr as Deno.NetAddr).port;
      const answer = await forwarder.relay(EVENT, targetTo(`http://127.0.0.1:${port}/in`, "relay"));
      assert.equal(answer.status, 200);
      assert.equal(await answer.text(), "hello");
      assert.equal(budget.used, 0, "the answer's share is given back once its sender has it");
    } finally {
      await forwarder.stop(0);
      listener.close();
      await serving;
    }
  },
});

/** A raw app that keeps the bytes of every request it reads (head and Content-Length body) and answers 204. */
function rawRecorder() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: Uint8Array[] = [];
  const conns = new Set<Deno.Conn>();
  const serving = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      (async () => {
        let pending = new Uint8Array(0);
        const chunk = new Uint8Array(64 * 1024);
        for (;;) {
          const n = await conn.read(chunk);
          if (n === null) break;
          const joined = new Uint8Array(pending.length + n);
          joined.set(pending);
          joined.set(chunk.subarray(0, n), pending.length);
          pending = joined;
          for (;;) {
            const text = new TextDecoder("latin1").decode(pending);
            const end = text.indexOf("\r\n\r\n");
            if (end === -1) break;
            const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
            if (pending.length < end + 4 + length) break;
            requests.push(pending.slice(0, end + 4 + length));
            pending = pending.slice(end + 4 + length);
            await conn.write(new TextEncoder().encode("HTTP/1.1 204 No Content\r\n\r\n"));
          }
        }
      })().catch(() => {}).finally(() => {
        conns.delete(conn);
        try {
          conn.close();
        } catch { /* closed */ }
      });
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    requests,
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      await serving;
    },
  };
}

Deno.test("an event read back from the store waits as its request's bytes: the app gets the very bytes of an event kept in memory, and a prepare that may need it whole gets it whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_backlog_" });
  const paths = storePaths(dir);
  const ids = createIdFactory();
  const events = Array.from({ length: 12 }, (_, i) => {
    const event = buildEvent({
      id: ids(new Date()),
      endpoint: "hook",
      receivedAt: new Date(),
      method: i === 11 ? "PUT" : "POST",
      path: "/hook",
      query: i % 2 === 0 ? `a=1&i=${i}` : "",
      // Case, order and repeats kept; the hop-by-hop ones and Host left out, in both ways.
      headers: [["Host", "x"], ["X-Case", `A${i}`], ["x-rep", "1"], ["Keep-Alive", "t"], ["X-Rep", "2"], [
        "Content-Type",
        "application/octet-stream",
      ]],
      // A binary body (stored as base64) and a UTF-8 one.
      body: i % 3 === 0
        ? new Uint8Array([0, 0xff, 0xfe, i, 10, 13])
        : new TextEncoder().encode(`{"n":${i},"é":"ü"}`),
      remoteAddr: "127.0.0.1",
    });
    event.forward = { to: "http://x/", mode: "queue" };
    if (i === 7) event.provider = "stripe";
    return event;
  });
  await Deno.writeTextFile(paths.events, events.map(eventLine).join(""));
  const app = rawRecorder();
  const target: ForwardTarget = {
    name: "app",
    endpoint: "hook",
    to: `http://127.0.0.1:${app.port}/in`,
    mode: "queue",
    timeoutMs: 2000,
    concurrency: 1,
    order: "arrival",
    attempts: 1,
    backoffMs: [10],
    insecure: false,
  };
  /** Delivers every event with a lane window of `window`: the requests the app read, and what prepare saw. */
  async function run(window: number) {
    app.requests.length = 0;
    const whole: string[] = [];
    const settled: string[] = [];
    const prepare = Object.assign(
      (event: typeof events[number]) => {
        if (event.headers.length > 0 && event.body !== "") whole.push(event.id);
        return undefined;
      },
      { whole: (event: typeof events[number]) => event.provider === "stripe" },
    );
    const forwarder = createForwarder({
      log: { append: () => Promise.resolve(), newId: () => "dlv_x" },
      backlog: storeBacklog(paths),
      window,
      prepare,
      onSettled: (event) => settled.push(`${event.id} ${event.provider ?? "-"}`),
    });
    try {
      for (const event of events) forwarder.enqueue(event, target);
      await within(forwarder.idle(), 20_000, "not delivered");
    } finally {
      await forwarder.stop();
      closeIdleConnections();
    }
    return { requests: app.requests.map((r) => new TextDecoder("latin1").decode(r)), whole, settled };
  }
  try {
    const live = await run(64);
    const readBack = await run(2);
    assert.equal(live.requests.length, events.length);
    assert.deepEqual(readBack.requests, live.requests, "the same bytes, in the same order");
    assert.match(
      live.requests[0]!,
      /^POST \/in\?a=1&i=0 HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nX-Case: A0\r\n/,
    );
    assert.ok(!live.requests.some((r) => /keep-alive: t/i.test(r)), "hop-by-hop headers are not sent");
    assert.deepEqual(readBack.settled, live.settled, "the same events settled, their fields kept");
    assert.deepEqual(live.whole, events.map((e) => e.id));
    assert.ok(readBack.whole.includes(events[7]!.id), "the event prepare may need whole is read back whole");
    assert.ok(readBack.whole.length < events.length - 2, "the others waited as their bytes");
  } finally {
    await app.close();
    await Deno.remove(dir, { recursive: true });
  }
});
