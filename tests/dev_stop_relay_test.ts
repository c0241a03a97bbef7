/**
 * What `hooktap dev` says at Ctrl-C about the requests still in its handler, found by an audit: a relayed
 * request waiting for the app's answer was called "finishing 1 upload", and, when the app took longer than
 * the 5 s a body gets, "Cut off 1 upload still arriving: answered 503 …, nothing stored" while the event was
 * stored. Real `dev`, a real app over loopback, raw uploads.
 * @module
 */
import assert from "node:assert/strict";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { HttpConn } from "./fault/_http.ts";

/** An app that answers 201 once `release()` is called, and says when a request reached it. */
function heldApp() {
  let release = () => {};
  const released = new Promise<void>((r) => (release = r));
  let arrived = () => {};
  const reached = new Promise<void>((r) => (arrived = r));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    arrived();
    await released;
    return new Response("app ok", { status: 201 });
  });
  return { url: `http://127.0.0.1:${server.addr.port}/hook`, server, release, reached };
}

async function until(what: () => boolean, label: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const config = (app: string) =>
  `export default { port: 0, ui: false, endpoints: [\n` +
  `  { name: "gh", path: "/gh", method: "POST", forward: { to: ${JSON.stringify(app)}, mode: "relay" } },\n` +
  `  { name: "up", path: "/up", method: "POST" },\n` +
  `] };\n`;

Deno.test({
  name:
    "Ctrl-C with a relay waiting for the app: dev says it waits for the app's answer, and the sender gets it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const app = heldApp();
    try {
      await writeFile(tmp.path, "hooktap.config.ts", config(app.url));
      await using dev = await startDev(tmp.path);
      const sent = fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
      await app.reached;
      dev.child.kill("SIGINT");
      await until(() => dev.stderr().includes("Stopping:"), "the stopping line");
      app.release();
      const answer = await sent;
      assert.equal(answer.status, 201);
      assert.equal(await answer.text(), "app ok");
      const code = (await dev.child.status).code;
      await dev.stop();
      const err = dev.stderr();
      assert.match(
        err,
        /Stopping: waiting for your app's answer to 1 relayed request… \(up to 5 s\) Ctrl-C again to quit now\./,
      );
      assert.doesNotMatch(err, /upload|Cut off/);
      assert.match(err, /Stopped\. 1 event captured/);
      assert.equal(code, 0);
    } finally {
      app.release();
      await app.server.shutdown();
    }
  },
});

Deno.test({
  name:
    "Ctrl-C with a relay and a slow upload: each said as it is; after 5 s the upload is cut off (503) and the relay answered 502",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const app = heldApp();
    try {
      await writeFile(tmp.path, "hooktap.config.ts", config(app.url));
      await using dev = await startDev(tmp.path);
      const sent = fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
      await app.reached;
      // An upload at ~20 KB/s that would take 10 s: still arriving when the 5 s wait runs out.
      const size = 200 * 1024;
      const conn = await HttpConn.open(dev.port);
      await conn.send(`POST /up HTTP/1.1\r\nhost: x\r\ncontent-length: ${size}\r\n\r\n`);
      let answered = false;
      const upload = conn.readResponse().finally(() => (answered = true));
      const sending = (async () => {
        const piece = new Uint8Array(2048).fill(0x61);
        for (let n = 0; n < size && !answered; n += piece.length) {
          await conn.send(piece).catch(() => {});
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      await new Promise((r) => setTimeout(r, 500)); // the upload is under way
      dev.child.kill("SIGINT");
      // After the 5 s wait both are cut off: the upload with a 503 (nothing stored), the relay (whose event
      // is stored) with a 502 naming it, as the app has still not answered.
      const cut = await upload;
      await sending;
      conn.close();
      assert.equal(cut.status, 503);
      const answer = await sent;
      assert.equal(answer.status, 502);
      const id = answer.headers.get("x-hooktap-event-id");
      assert.match(await answer.text(), new RegExp(`The event is stored as ${id}`));
      app.release();
      const code = (await dev.child.status).code;
      await dev.stop();
      const err = dev.stderr();
      assert.match(
        err,
        /Stopping: finishing 2 requests: 1 request still arriving or being answered, 1 relayed request waiting for your app's answer… \(up to 5 s\) Ctrl-C again to quit now\./,
      );
      assert.match(err, /Cut off 1 upload still arriving: answered 503 with Retry-After, nothing stored/);
      assert.match(
        err,
        /Cut off 1 relayed request your app had not answered: answered 502; its event is stored\./,
      );
      assert.match(err, /Stopped\. 1 event captured/);
      assert.equal(code, 0);
    } finally {
      app.release();
      await app.server.shutdown();
    }
  },
});
