import assert from "node:assert/strict";
import { RelayBudget } from "./relay_budget.ts";
import { Http1Pool } from "./http1.ts";

Deno.test("a lease takes from the shared budget and gives back all it took, once", () => {
  const budget = new RelayBudget(100);
  const a = budget.lease(10);
  const b = budget.lease(10);
  assert.ok(a.take(60));
  assert.ok(!b.take(50), "over the bound: refused, nothing charged");
  assert.equal(budget.used, 60);
  assert.ok(b.take(40));
  a.release();
  a.release();
  assert.equal(budget.used, 40);
  assert.ok(!a.take(1), "a released lease takes nothing more");
  b.release();
  assert.equal(budget.used, 0);
});

Deno.test({
  name:
    "over the budget an answer keeps only its start, uncharged: declared whole or not, chunked as it comes",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const big = "x".repeat(300 * 1024);
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const chunked = new URL(req.url).pathname === "/chunked";
      const body = chunked ? new Blob([big]).stream() : big;
      return new Response(body);
    });
    const pool = new Http1Pool();
    try {
      const origin = { hostname: "127.0.0.1", port: server.addr.port };
      for (const path of ["/declared", "/chunked"]) {
        const budget = new RelayBudget(200 * 1024);
        const other = budget.lease(0);
        assert.ok(other.take(1)); // another answer holds a byte
        const lease = budget.lease(1000);
        const answer = await pool.request(origin, { method: "GET", target: path, headers: [], body: null }, {
          timeoutMs: 5000,
          maxBody: 1024 * 1024,
          budget: lease,
        });
        assert.equal(answer.overBudget, true, path);
        assert.equal(answer.bodySize, big.length, `${path}: the whole answer is read and counted`);
        assert.equal(answer.body.length, 1000, `${path}: only its start is kept`);
        assert.equal(budget.used, 1, `${path}: what it took is given back`);
        lease.release();
        other.release();
      }
      const budget = new RelayBudget(1024 * 1024);
      const lease = budget.lease();
      const whole = await pool.request(origin, {
        method: "GET",
        target: "/declared",
        headers: [],
        body: null,
      }, {
        timeoutMs: 5000,
        maxBody: 1024 * 1024,
        budget: lease,
      });
      assert.equal(whole.overBudget, undefined);
      assert.equal(whole.body.length, big.length);
      assert.equal(budget.used, big.length, "held until its sender has it");
      lease.release();
      assert.equal(budget.used, 0);
    } finally {
      pool.close();
      await server.shutdown();
    }
  },
});
