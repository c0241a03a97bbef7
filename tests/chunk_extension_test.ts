/**
 * A chunked body with a huge chunk extension (`5;ext=<100 KB>`), sent to a real `hooktap dev` and a real
 * hub over raw loopback sockets: Deno.serve's parser refuses it, and the answer says so at once (400, the
 * framing named), never a 408 claiming no body bytes arrived after the stall watch's 30 or 60 s. A short
 * extension is taken as any chunked body is, and the refused request stores nothing.
 * @module
 */
import assert from "node:assert/strict";
import { readEvents, startDev, withTmpDir } from "./_helpers.ts";
import { createChannel, startHub } from "./_hub.ts";
import { HttpConn, type RawResponse } from "./fault/_http.ts";

/** Sends one chunked POST whose first chunk carries `ext`; the answer, or how it ended within 20 s. */
async function chunkedWith(port: number, path: string, ext: string): Promise<RawResponse | string> {
  const conn = await HttpConn.open(port);
  try {
    await conn.send(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n` +
        `5;${ext}\r\nhello\r\n0\r\n\r\n`,
    ).catch(() => {});
    // Only so that a failure reads as "no answer" instead of a hung test: the stall watch answers later.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<string>((r) => (timer = setTimeout(() => r("no answer within 20 s"), 20_000)));
    const got = await Promise.race([conn.readResponse().catch((e: Error) => e.message), late]);
    clearTimeout(timer);
    return got;
  } finally {
    conn.close();
  }
}

function assertRefusedFraming(got: RawResponse | string, who: string): void {
  assert.notEqual(typeof got, "string", `${who}: ${String(got)}`);
  const answer = got as RawResponse;
  assert.equal(answer.status, 400, `${who}: ${answer.text()}`);
  assert.match(
    answer.text(),
    /^Bad request: the HTTP parser refused the body's framing \(.*chunk extension longer than about 4 KiB.*\)\. Nothing was stored\.$/,
  );
  assert.doesNotMatch(answer.text(), /no body/);
}

const HUGE = `ext=${"a".repeat(100_000)}`;

Deno.test("chunk extension: dev answers a 100 KB chunk extension with a 400 naming the framing, stores nothing, and takes a short one", async () => {
  await using tmp = await withTmpDir();
  await using dev = await startDev(tmp.path);
  assert.match(dev.stderr(), /Server: Deno\.serve/);
  assertRefusedFraming(await chunkedWith(dev.port, "/webhook", HUGE), "dev");
  const short = await chunkedWith(dev.port, "/webhook", "a=b");
  assert.notEqual(typeof short, "string", String(short));
  assert.ok((short as RawResponse).status < 300, (short as RawResponse).text());
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 1, "only the short extension's request is stored");
});

Deno.test("chunk extension: the hub answers a 100 KB chunk extension with a 400 naming the framing", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const path = `${new URL(channel.url).pathname}/hook`;
  assertRefusedFraming(await chunkedWith(hub.port, path, HUGE), "hub");
  const short = await chunkedWith(hub.port, path, "a=b");
  assert.notEqual(typeof short, "string", String(short));
  assert.ok((short as RawResponse).status < 300, (short as RawResponse).text());
});
