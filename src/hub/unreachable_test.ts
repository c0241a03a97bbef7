import assert from "node:assert/strict";
import { fetchReason } from "./unreachable.ts";

/** What fetch throws when the peer at `answer` closes the connection after writing `answer`. */
async function failureOf(answer: string): Promise<unknown> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    const conn = await listener.accept();
    await conn.read(new Uint8Array(4096));
    await conn.write(new TextEncoder().encode(answer));
    conn.close();
  })();
  try {
    const response = await fetch(`http://127.0.0.1:${listener.addr.port}/api`);
    await response.json();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await served;
    listener.close();
  }
}

Deno.test("a hub that dies in the middle of its answer is said to have cut the connection, not Deno's words", async () => {
  const error = await failureOf(
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"events":[',
  );
  assert.ok(error instanceof TypeError, String(error));
  assert.match(fetchReason(error), /^the connection was cut before the hub's answer was whole/);
});

Deno.test("nothing listening is said as such", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const error = await fetch(`http://127.0.0.1:${port}/`).then(() => undefined, (e) => e);
  assert.equal(fetchReason(error), "nothing listens there: connection refused");
});
