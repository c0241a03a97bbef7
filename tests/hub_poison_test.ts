/**
 * `hooktap dev --hub` and an event already stored at the hub that the client refuses (a poison event: a
 * hub that did not check stored it). The poison is written straight into the hub's KV file (the key layout
 * of src/hub/kv_store.ts) while the hub is stopped: the running hub's own check refuses such a request at
 * ingest. Then the real hub, the real dev subprocess and senders over loopback: the good events before and
 * after it are stored and acknowledged, each poison event is said once (which, what is wrong, not stored
 * here, how to see it at the hub) and passed.
 */
import assert from "node:assert/strict";
import { readEvents, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";
import { createChannel, hubSeqs, send, startHub } from "./_hub.ts";

const CONFIG = `export default {
  port: 8787,
  ui: false,
  endpoints: [{ name: "gh", path: "/gh", method: "POST" }],
};
`;

/** Appends `events` after the channel's head in the hub's KV file, as a hub that did not check them would. */
async function storePoison(
  kvPath: string,
  channel: string,
  events: { method: string; headers: [string, string][] }[],
) {
  const kv = await Deno.openKv(kvPath);
  try {
    const head = (await kv.get<number>(["hub", "head", channel])).value ?? 0;
    const op = kv.atomic();
    const body = new TextEncoder().encode('{"poison":true}');
    events.forEach((e, i) =>
      op.set(["hub", "event", channel, head + 1 + i], {
        seq: head + 1 + i,
        receivedAt: new Date().toISOString(),
        method: e.method,
        path: "/gh",
        query: "",
        headers: e.headers,
        remoteAddr: "127.0.0.1",
        size: body.length,
        body,
      })
    );
    op.set(["hub", "head", channel], head + events.length);
    op.sum(["hub", "usage", channel], BigInt(body.length * events.length));
    assert.ok((await op.commit()).ok);
    return head;
  } finally {
    kv.close();
  }
}

Deno.test("hub: a poison event stored at the hub is said once and skipped; the events after it are stored and acknowledged", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const first = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, first.url);
  const id = new URL(channel.url).pathname.split("/").at(-1)!;
  const api = `${first.url}/api/channels/${id}`;
  const auth = { authorization: `Bearer ${channel.token}` };
  assert.equal(await send(`${channel.url}/gh`, '{"n":1}'), 200);
  await first.stop();

  const head = await storePoison(`${tmp.path}/hub.sqlite`, id, [
    { method: "POST", headers: [["x".repeat(300), "v"], ["content-type", "application/json"]] },
    { method: "P".repeat(40), headers: [] },
  ]);
  assert.equal(head, 1);

  await using _hub = await startHub(tmp.path, first.port); // the channel URL names its port
  assert.equal(await send(`${channel.url}/gh`, '{"n":4}'), 200);
  // Another client of the channel, not yet past the poison: the hub holds it after dev passes it.
  const other = await fetch(`${api}?client=other&hello=1`, { headers: auth });
  assert.equal(other.status, 200, await other.text());

  await using dev = await startDev(tmp.path, [
    "--hub",
    channel.url,
    "--hub-token",
    channel.token,
    "--hub-client",
    "dev",
  ]);
  await until(async () => (await hubSeqs(tmp.path)).length >= 2, "dev to store events 1 and 4");
  assert.deepEqual(await hubSeqs(tmp.path), [1, 4]);
  assert.deepEqual((await readEvents(tmp.path)).map((e) => e.body), ['{"n":1}', '{"n":4}']);
  // Acknowledged past the poison: the hub's cursor for this client, and the local one.
  await until(async () => {
    const r = await fetch(`${api}?client=dev`, { headers: auth });
    return (await r.json()).acked === 4;
  }, "the hub to get the ack of event 4");
  const state = JSON.parse(await Deno.readTextFile(`${tmp.path}/.hooktap/hub.json`));
  assert.equal(state.seq, 4);
  assert.equal(state.connected, true);

  const err = dev.stderr();
  const lines = err.split("\n").filter((l) => l.includes("skipped"));
  assert.equal(lines.length, 2, err);
  assert.match(
    lines[0]!,
    /^Hub: event 2 skipped: the hub sent it with bad headers \(a header name of 300 characters; 1 to 256 are allowed\), which this client refuses\. It is NOT stored here \(not logged, not forwarded\), and the cursor moves past it\. The hub keeps it until every client of the channel is past it \(this one is now\) or its retention ends; until then curl/,
  );
  assert.match(
    lines[1]!,
    /^Hub: event 3 skipped: the hub sent it with a bad method \(40 characters; 1 to 32 are allowed\)/,
  );
  assert.doesNotMatch(err, /connection lost|retrying|refuses \(/);

  // The way to see it that the line gives works while the hub holds it (the other client pins it).
  const show = /curl -H "Authorization: Bearer <channel token>" '([^']+)' shows it/.exec(lines[0]!)?.[1];
  assert.ok(show !== undefined, lines[0]);
  const shown = await (await fetch(show, { headers: auth })).json();
  assert.equal(shown.events.length, 1);
  assert.equal(shown.events[0].seq, 2);
  assert.equal(shown.events[0].headers[0][0], "x".repeat(300));
});
