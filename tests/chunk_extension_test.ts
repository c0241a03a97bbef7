/**
 * Chunked bodies Deno.serve's parser refuses, sent to a real `hooktap dev` and a hub over raw loopback
 * sockets: the answer says only what is known. A 100 KB chunk extension (`5;ext=<100 KB>`) is refused by
 * the parser, but Deno.serve (2.9) never fails a body read of 4 KiB or less with it (the read just waits):
 * the stall watch answers 408, saying that no body data was read, never that no body bytes arrived. A short
 * extension is taken as any chunked body is.
 * @module
 */
import assert from "node:assert/strict";
import { readEvents, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { createChannel } from "./_hub.ts";
import { HttpConn, type RawResponse } from "./fault/_http.ts";
import { serveHub } from "../src/hub/serve.ts";

/** Sends one chunked POST whose first chunk line is `line`; the answer, or how it ended within 20 s. */
async function chunked(port: number, path: string, line: string): Promise<RawResponse> {
  const conn = await HttpConn.open(port);
  try {
    await conn.send(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n` +
        `${line}\r\nhello\r\n0\r\n\r\n`,
    ).catch(() => {});
    // Only so that a failure reads as "no answer" instead of a hung test.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<string>((r) => (timer = setTimeout(() => r("no answer within 20 s"), 20_000)));
    const got = await Promise.race([conn.readResponse().catch((e: Error) => e.message), late]);
    clearTimeout(timer);
    if (typeof got === "string") throw new Error(`${line.slice(0, 20)}: ${got}`);
    return got;
  } finally {
    conn.close();
  }
}

/** The two requests against `port`: what each is answered. */
async function checkAnswers(port: number, path: string): Promise<void> {
  const huge = await chunked(port, path, `5;ext=${"a".repeat(100_000)}`);
  assert.equal(huge.status, 408, huge.text());
  assert.equal(huge.text(), "Request timeout: no body data was read for 1 s. Nothing was stored.");
  const short = await chunked(port, path, "5;a=b");
  assert.ok(short.status < 300, short.text());
}

Deno.test("chunk extension: dev says what it knows of a body the parser refuses (408: no body data read) and stores only the good one", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default {
  port: 8787,
  server: { bodyTimeoutMs: 1000 },
  endpoints: [{ name: "default", path: "/webhook", method: "POST" }],
};
`,
  );
  await using dev = await startDev(tmp.path);
  assert.match(dev.stderr(), /Server: Deno\.serve/);
  await checkAnswers(dev.port, "/webhook");
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 1, "only the short extension's request is stored");
  assert.equal(events[0]!.body, "hello");
});

Deno.test("chunk extension: the hub says what it knows of a body the parser refuses (408: no body data read)", async () => {
  await using tmp = await withTmpDir();
  const hub = await serveHub({
    hostname: "127.0.0.1",
    port: 0,
    kvPath: `${tmp.path}/hub.sqlite`,
    adminToken: "admin",
    bodyTimeoutMs: 1000,
  });
  try {
    const channel = await createChannel(tmp.path, hub.url);
    await checkAnswers(hub.port, `${new URL(channel.url).pathname}/hook`);
  } finally {
    await hub.stop();
  }
});
