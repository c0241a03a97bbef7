import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { closeIdleConnections, sendRaw } from "./client.ts";
import { RelayBudget } from "./relay_budget.ts";

const FIXTURE = (name: string) =>
  Deno.readTextFile(
    fileURLToPath(new URL(`../../tests/fixtures/tls_localhost_test_only.${name}.pem`, import.meta.url)),
  );

Deno.test({
  name: "https: a 304 or 204 whose Content-Length names a size it never sends charges no relay budget " +
    "(as over http): its sender is not told hooktap was busy",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cert = await FIXTURE("cert");
    const key = await FIXTURE("key");
    // A raw TLS app: a 304's Content-Length is the size of the representation, legal and never sent.
    const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert, key });
    const serving = (async () => {
      for await (const conn of listener) {
        (async () => {
          const buf = new Uint8Array(64 * 1024);
          const n = await conn.read(buf);
          const status = new TextDecoder().decode(buf.subarray(0, n ?? 0)).includes("/204") ? 204 : 304;
          await conn.write(new TextEncoder().encode(`HTTP/1.1 ${status} X\r\ncontent-length: 5000\r\n\r\n`));
          conn.close();
        })().catch(() => {});
      }
    })().catch(() => {});
    try {
      const port = (listener.addr as Deno.NetAddr).port;
      for (const path of ["/304", "/204"]) {
        const budget = new RelayBudget(1000);
        const lease = budget.lease(100);
        const answer = await sendRaw(
          new URL(`https://localhost:${port}${path}`),
          { method: "GET", headers: [], body: null },
          { ca: cert, timeoutMs: 5000, keepAlive: false, maxBody: 64 * 1024 * 1024, budget: lease },
        );
        assert.equal(answer.status, Number(path.slice(1)));
        assert.equal(answer.overBudget, undefined, `${path}: no body came, so none was over the budget`);
        lease.release();
        assert.equal(budget.used, 0);
      }
    } finally {
      closeIdleConnections();
      listener.close();
      await serving;
    }
  },
});
