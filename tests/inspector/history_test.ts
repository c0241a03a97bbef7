/**
 * The inspector's delivery states on a long history (issue 36: kept in bounded memory, read for the
 * events shown), over real HTTP, held to the whole-log oracle: every row of every page, every
 * `delivery=` filter paged to the start of the log (alone and with another filter), and the live rows.
 */
import assert from "node:assert/strict";
import { allDeliveries, byEvent } from "../_delivery_fixture.ts";
import { APP, APP_URL, writeDeliveryHistory } from "../_delivery_history.ts";
import { DELIVERY_VERSION, type DeliveryRecord } from "../../src/event/delivery.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { type CapturedEvent, eventLine, parseEventLine } from "../../src/event/record.ts";
import { createLiveFeed } from "../../src/inspector/live.ts";
import { startInspector } from "../../src/inspector/server.ts";
import { eventDelivery } from "../../src/send/delivery_state.ts";
import type { StorePaths } from "../../src/store/paths.ts";

interface Row {
  id: string;
  delivery: string;
  endpoint: string;
}

async function eventsOf(paths: StorePaths): Promise<CapturedEvent[]> {
  return (await Deno.readTextFile(paths.events)).split("\n").filter((l) => l !== "").map((l) =>
    parseEventLine(l)!
  );
}

/** The oracle: each event's state from all its records, newest event first. */
async function oracle(paths: StorePaths): Promise<{ id: string; state: string; endpoint: string }[]> {
  const all = byEvent(await allDeliveries(paths.deliveries));
  return (await eventsOf(paths)).reverse().map((e) => ({
    id: e.id,
    endpoint: e.endpoint,
    state: eventDelivery(e, all.get(e.id)).state,
  }));
}

async function withHistory(
  beforeDeliveries: boolean,
  run: (o: {
    paths: StorePaths;
    live: ReturnType<typeof createLiveFeed>;
    get: (query: string) => Promise<{ events: Row[]; next: number | null }>;
    url: string;
    token: string;
  }) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_history_" });
  // A month, a few events an hour: a page reads its events' records, never the whole log at once.
  const { paths } = await writeDeliveryHistory(dir, { events: 2400, spacingMs: 18 * 60_000 });
  const live = createLiveFeed({ beforeDeliveries });
  const inspector = startInspector({ paths, port: 0, live });
  try {
    await run({
      paths,
      live,
      url: inspector.url,
      token: inspector.token,
      async get(query) {
        const r = await fetch(`${inspector.url}api/events?${query}`, {
          headers: { "x-hooktap-token": inspector.token },
        });
        assert.equal(r.status, 200, query);
        return await r.json();
      },
    });
  } finally {
    await inspector.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every row of `query`, paged with `limit` to the start of the log. */
async function allPages(get: (q: string) => Promise<{ events: Row[]; next: number | null }>, query: string) {
  const rows: Row[] = [];
  let before: number | null = null;
  let pages = 0;
  do {
    const page = await get(`${query}${before === null ? "" : `&before=${before}`}`);
    rows.push(...page.events);
    before = page.next;
    pages++;
  } while (before !== null);
  return { rows, pages };
}

Deno.test("on a month of history, every row's state and every delivery= filter equal the whole log's", async () => {
  await withHistory(true, async ({ paths, get }) => {
    const want = await oracle(paths);
    const { rows, pages } = await allPages(get, "limit=100");
    assert.ok(pages >= 24);
    assert.deepEqual(rows.map((r) => [r.id, r.delivery]), want.map((w) => [w.id, w.state]));
    const states = ["delivered", "failed", "retrying", "pending", "none"];
    for (const state of states) {
      const expected = want.filter((w) => w.state === state).map((w) => w.id);
      assert.ok(expected.length > 0, state);
      const got = await allPages(get, `delivery=${state}&limit=50`);
      assert.deepEqual(got.rows.map((r) => r.id), expected, `delivery=${state}`);
      assert.ok(got.rows.every((r) => r.delivery === state));
    }
    const both = await allPages(get, "delivery=failed&endpoint=github&limit=7");
    assert.deepEqual(
      both.rows.map((r) => r.id),
      want.filter((w) => w.state === "failed" && w.endpoint === "github").map((w) => w.id),
    );
  });
});

Deno.test("a live row's state (hooktap ui: the event may be forwarded before it is seen), and the list's after the log grows, equal the whole log's", async () => {
  await withHistory(false, async ({ paths, live, get, url, token }) => {
    await get("limit=100"); // the newest rows are kept
    const response = await fetch(`${url}api/stream`, { headers: { "x-hooktap-token": token } });
    const pendingOnly = await fetch(`${url}api/stream?delivery=pending`, {
      headers: { "x-hooktap-token": token },
    });
    const read = async (body: ReadableStream<Uint8Array<ArrayBuffer>>, n: number) => {
      const reader = body.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (text.split("\nevent: event\n").length - 1 < n || !text.endsWith("\n\n")) {
        text += (await reader.read()).value ?? "";
      }
      await reader.cancel();
      return [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Row);
    };
    const rows = read(response.body!, 3);
    const pendingRows = read(pendingOnly.body!, 1);
    const newId = createIdFactory();
    const at = new Date();
    const events = (await eventsOf(paths)).slice(-3);
    const fresh: CapturedEvent[] = events.map((e, i) => ({
      ...e,
      id: newId(new Date(at.getTime() + i)),
      receivedAt: new Date(at.getTime() + i).toISOString(),
      forward: { to: APP_URL, mode: "queue" as const },
    }));
    delete fresh[1]!.forward;
    // The first is delivered (its record written before the row is read), the second not forwarded,
    // the third waits for its first attempt.
    const record: DeliveryRecord = {
      v: DELIVERY_VERSION,
      id: createIdFactory("dlv")(new Date(at.getTime() + 5)),
      event: fresh[0]!.id,
      endpoint: fresh[0]!.endpoint,
      source: "forward",
      target: APP,
      url: APP_URL,
      method: "POST",
      attempt: 1,
      startedAt: new Date(at.getTime() + 5).toISOString(),
      durationMs: 1,
      outcome: "delivered",
      status: 200,
    };
    await Deno.writeTextFile(paths.events, fresh.map(eventLine).join(""), { append: true });
    await Deno.writeTextFile(paths.deliveries, JSON.stringify(record) + "\n", { append: true });
    for (const e of fresh) live.publish(e);
    const want = new Map((await oracle(paths)).map((w) => [w.id, w.state]));
    const got = await rows;
    assert.deepEqual(got.map((r) => [r.id, r.delivery]), fresh.map((e) => [e.id, want.get(e.id)]));
    assert.deepEqual(got.map((r) => r.delivery), ["delivered", "none", "pending"]);
    assert.deepEqual((await pendingRows).map((r) => r.id), [fresh[2]!.id]);

    // The log grows: a kept row (the newest listed) and an old one are replayed; the list agrees.
    const old = (await eventsOf(paths))[8]!;
    const replays = [fresh[2]!, old].map((e, i) =>
      JSON.stringify({
        ...record,
        id: createIdFactory("dlv")(new Date(at.getTime() + 10 + i)),
        event: e.id,
        source: "replay",
        outcome: "failed",
        status: 500,
      }) + "\n"
    );
    await Deno.writeTextFile(paths.deliveries, replays.join(""), { append: true });
    const after = new Map((await oracle(paths)).map((w) => [w.id, w.state]));
    const { rows: listed } = await allPages(get, "limit=1000");
    assert.deepEqual(listed.map((r) => [r.id, r.delivery]), [...after]);
    assert.equal(after.get(fresh[2]!.id), "failed");
  });
});

Deno.test("dev's own live rows: an event told before it is forwarded, then its attempts, as the whole log says", async () => {
  await withHistory(true, async ({ paths, live, get, url, token }) => {
    await get("limit=10");
    const response = await fetch(`${url}api/stream`, { headers: { "x-hooktap-token": token } });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    await reader.read(); // the opening comment
    const e = { ...(await eventsOf(paths)).at(-1)!, id: createIdFactory()(new Date()) };
    e.receivedAt = new Date().toISOString();
    e.forward = { to: APP_URL, mode: "queue" };
    await Deno.writeTextFile(paths.events, eventLine(e), { append: true });
    live.publish(e); // as dev: once durable, before the forwarder sends it
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    await reader.cancel();
    assert.equal(JSON.parse(text.match(/^data: (.*)$/m)![1]!).delivery, "pending");
    // Then dev forwards it: a failed try, then delivered; the list (refreshed) follows the log.
    for (const [i, outcome] of (["retrying", "delivered"] as const).entries()) {
      const at = new Date(Date.now() + i);
      const record = {
        v: DELIVERY_VERSION,
        id: createIdFactory("dlv")(at),
        event: e.id,
        endpoint: e.endpoint,
        source: "forward",
        target: APP,
        url: APP_URL,
        method: "POST",
        attempt: i + 1,
        startedAt: at.toISOString(),
        durationMs: 1,
        outcome,
        status: outcome === "delivered" ? 200 : 503,
      } satisfies DeliveryRecord;
      await Deno.writeTextFile(paths.deliveries, JSON.stringify(record) + "\n", { append: true });
      const want = new Map((await oracle(paths)).map((w) => [w.id, w.state]));
      const row = (await get("limit=5")).events.find((r) => r.id === e.id)!;
      assert.equal(row.delivery, want.get(e.id));
      assert.equal(row.delivery, outcome);
    }
  });
});
