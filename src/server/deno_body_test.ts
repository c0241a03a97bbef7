import assert from "node:assert/strict";
import { validateConfig } from "../config/validate.ts";
import type { CapturedEvent } from "../event/record.ts";
import { decodeBody } from "../event/record.ts";
import { createHandler } from "../receiver/handler.ts";
import { unlockBody, unlockDeclaredBody } from "./deno_body.ts";

const { endpoints } = validateConfig(
  { port: 0, endpoints: [{ name: "read", path: "/read", method: ["GET", "HEAD", "POST"] }] },
  null,
);

/** A Deno.serve on a free port with the receiver's handler; `unlock` runs first when given. */
function serve(unlock: ((request: Request) => void) | undefined) {
  const events: CapturedEvent[] = [];
  const handler = createHandler({ endpoints, sink: { append: (e) => Promise.resolve(void events.push(e)) } });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    unlock?.(request);
    return handler(request);
  });
  return { events, server, port: server.addr.port };
}

/** Sends `raw` on a new connection; the status of the answer. */
async function statusOf(port: number, raw: string | Uint8Array): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(typeof raw === "string" ? new TextEncoder().encode(raw) : raw);
    let text = "";
    const buf = new Uint8Array(4096);
    while (!text.includes("\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return Number(text.split(" ")[1]);
  } finally {
    conn.close();
  }
}

Deno.test("without the unlock, Deno.serve hides a GET body: the handler answers 501 and stores nothing", async () => {
  const { events, server, port } = serve(undefined);
  try {
    assert.equal(
      await statusOf(port, "GET /read HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello"),
      501,
    );
    assert.equal(events.length, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("unlockDeclaredBody: GET and HEAD bodies (by length, chunked, 300 KB) are stored byte for byte", async () => {
  const { events, server, port } = serve(unlockDeclaredBody);
  const big = "x".repeat(300_000);
  const binary = new Uint8Array([0x00, 0xff, 0x1b, 0x80, 0x0a]);
  try {
    assert.equal(
      await statusOf(port, "GET /read HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello"),
      200,
    );
    const head = new TextEncoder().encode("HEAD /read HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\n");
    assert.equal(await statusOf(port, new Uint8Array([...head, ...binary])), 200);
    assert.equal(
      await statusOf(
        port,
        "GET /read HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n",
      ),
      200,
    );
    assert.equal(
      await statusOf(port, `GET /read HTTP/1.1\r\nhost: x\r\ncontent-length: ${big.length}\r\n\r\n${big}`),
      200,
    );
    assert.equal(await statusOf(port, "GET /read HTTP/1.1\r\nhost: x\r\n\r\n"), 200);
    assert.equal(await statusOf(port, "POST /read HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"), 200);
  } finally {
    await server.shutdown();
  }
  assert.deepEqual(events.map((e) => [e.method, e.bodySize]), [
    ["GET", 5],
    ["HEAD", 5],
    ["GET", 7],
    ["GET", 300_000],
    ["GET", 0],
    ["POST", 2],
  ]);
  assert.equal(new TextDecoder().decode(decodeBody(events[0]!)), "hello");
  assert.deepEqual(decodeBody(events[1]!), binary);
  assert.equal(new TextDecoder().decode(decodeBody(events[2]!)), "abcdefg");
  assert.equal(new TextDecoder().decode(decodeBody(events[3]!)), big);
});

Deno.test("unlockBody leaves other methods and requests not from Deno.serve alone", () => {
  assert.equal(unlockBody(new Request("http://x/", { method: "POST", body: "a" })), false);
  const get = new Request("http://x/");
  assert.equal(unlockBody(get), false, "a Request built in JavaScript has no body to unlock");
  assert.equal(get.method, "GET");
  assert.equal(get.body, null);
});
