/**
 * Half-closed clients: a sender that shuts its writing side after the body
 * (TCP FIN) and then waits for the answer. What hooktap does is documented in
 * docs/sending.md ("Half-closed clients").
 * @module
 */
import assert from "node:assert/strict";
import { LEAST_PRIVILEGE, readEvents, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const CONFIG =
  `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`;

async function halfClosed(port: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode("POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"),
    );
    await conn.closeWrite();
    const buf = new Uint8Array(4096);
    const timer = setTimeout(() => conn.close(), 5000);
    const n = await conn.read(buf).catch(() => null);
    clearTimeout(timer);
    return n === null ? "no answer" : new TextDecoder().decode(buf.subarray(0, n)).split("\r\n")[0]!;
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

Deno.test("a client that half-closes after its body: the default server (Deno.serve) stores the event exactly; its answer cannot go out", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using dev = await startDev(tmp.path, [], {
    permissions: [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_STACK"],
    env: { HOOKTAP_STACK: "deno" },
  });
  const answer = await halfClosed(dev.port);
  await dev.stop();
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 1); // never lost
  assert.equal(events[0]!.body, "{}");
  // The decision (docs/sending.md): stored and logged; Deno.serve closes the connection on the client's FIN,
  // so the answer does not reach it. A sender that half-closes and retries sends a duplicate, stored again.
  assert.ok(answer === "no answer" || answer.startsWith("HTTP/1.1 200"), answer);
});
