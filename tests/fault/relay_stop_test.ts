/**
 * `hooktap dev --forward-mode relay` stopped while the app has not answered
 * a relayed request: the sender is answered (a 502 naming the stored event)
 * instead of left without an answer, and the stop says what became of it,
 * not that an upload was cut off with nothing stored.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";

/** An app that takes requests and never answers them. */
function hangingApp(): { port: number; received: () => number } & AsyncDisposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  let received = 0;
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        conns.add(conn);
        void (async () => {
          const buf = new Uint8Array(65536);
          try {
            while ((await conn.read(buf)) !== null) received++;
          } catch { /* closed */ }
        })();
      }
    } catch { /* closed */ }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    received: () => received,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await accepting;
    },
  };
}

Deno.test("Ctrl-C while a relayed request waits for an app that does not answer: the sender gets a 502 naming the stored event", async () => {
  await using tmp = await withTmpDir();
  await using app = hangingApp();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
  );
  await using dev = await startDev(tmp.path, [
    "--forward-to",
    `http://127.0.0.1:${app.port}/hook`,
    "--forward-mode",
    "relay",
  ]);
  const answer = fetch(`${dev.url}/webhook`, { method: "POST", body: '{"relayed":1}' }).then(
    async (res) => ({
      status: res.status,
      id: res.headers.get("x-hooktap-event-id"),
      text: await res.text(),
    }),
    (error: Error) => ({ status: 0, id: null, text: `no answer: ${error.message}` }),
  );
  for (let i = 0; i < 100 && app.received() === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(app.received() > 0, "the app got the relayed request");
  dev.child.kill("SIGINT");
  const got = await answer;
  const { code } = await dev.child.status; // no second signal: that one would quit at once
  await dev.stop();
  const err = dev.stderr();
  assert.equal(got.status, 502, `the sender is answered: ${got.text}`);
  const stored = (await Deno.readTextFile(join(tmp.path, ".hooktap", "events.jsonl"))).split("\n")
    .filter(Boolean).map((l) => JSON.parse(l).id);
  assert.deepEqual(stored, [got.id]);
  assert.match(
    got.text,
    new RegExp(
      `hooktap dev stopped before .* answered this relayed request\\. The event is stored as ${got.id}\\.`,
    ),
  );
  assert.match(err, /Stopping: waiting for your app's answer to 1 relayed request… \(up to 5 s\)/);
  assert.match(
    err,
    /Cut off 1 relayed request your app had not answered: answered 502; its event is stored\./,
  );
  assert.doesNotMatch(
    err,
    /upload still arriving|nothing stored/,
    "it was stored, and no upload was cut off",
  );
  assert.match(err, /Stopped\. 1 event captured this session/);
  assert.equal(code, 0, err);
});

Deno.test("Ctrl-C cuts a relayed request off, the app answers while dev still waits for its deliveries: the record says the sender got hooktap's 502", async () => {
  await using tmp = await withTmpDir();
  // Answers 6 s after the request: after dev's 5 s wait for the relay (the sender then gets the 502), within
  // the forwarder's grace, so the attempt is recorded with the app's 200.
  const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.arrayBuffer();
    await new Promise((r) => setTimeout(r, 6000));
    return new Response("late but fine");
  });
  try {
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, ui: false, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
    );
    await using dev = await startDev(tmp.path, [
      "--forward-to",
      `http://127.0.0.1:${app.addr.port}/hook`,
      "--forward-mode",
      "relay",
    ]);
    const answer = fetch(`${dev.url}/webhook`, { method: "POST", body: '{"relayed":2}' }).then(
      async (res) => ({ status: res.status, text: await res.text() }),
      (error: Error) => ({ status: 0, text: `no answer: ${error.message}` }),
    );
    await new Promise((r) => setTimeout(r, 500));
    dev.child.kill("SIGINT");
    const got = await answer;
    await dev.child.status;
    await dev.stop();
    assert.equal(got.status, 502, got.text);
    const records = (await Deno.readTextFile(join(tmp.path, ".hooktap", "deliveries.jsonl"))).split("\n")
      .filter(Boolean).map((l) => JSON.parse(l));
    assert.equal(records.length, 1, dev.stderr());
    assert.equal(records[0].status, 200, "the app's answer is recorded");
    assert.equal(records[0].senderStatus, 502, "and that its sender got hooktap's 502 instead");
    const logs = await runCli(["logs"], { cwd: tmp.path });
    assert.match(logs.stdout, /→ 200 \(sender got 502\)/, logs.stdout);
  } finally {
    await app.shutdown();
  }
});
