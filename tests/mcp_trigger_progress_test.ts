/**
 * `hooktap mcp`'s `trigger` with `retries` runs for many seconds (the provider's retry schedule, compressed):
 * a client that asked for progress hears of each delivery, so it knows the call is alive (the SDK resets its
 * request timeout on them with `resetTimeoutOnProgress`) and an agent sees what was sent so far.
 */
import assert from "node:assert/strict";
import { withTmpDir, writeFile } from "./_helpers.ts";
import { startMcp } from "./_mcp_client.ts";

Deno.test({
  name: "hooktap mcp: trigger with retries tells a client that asked for progress of each delivery",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "slack", path: "/slack", method: "POST", provider: "slack" }] };\n`,
    );
    let got = 0;
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      await req.arrayBuffer();
      got++;
      return new Response("no", { status: 500 });
    });
    try {
      await using mcp = await startMcp(tmp.path);
      const heard: { progress: number; message?: string }[] = [];
      const r = await mcp.call(
        "trigger",
        {
          provider: "slack",
          event: "app_mention",
          retries: 2,
          to: `http://127.0.0.1:${server.addr.port}/slack`,
        },
        (p) => heard.push(p),
      );
      assert.equal(r.isError, false, r.text);
      assert.equal(r.structured!.deliveries.length, 3);
      assert.equal(got, 3);
      // As each next delivery goes out, how the one before went. Nothing after the last: the answer follows,
      // and the SDK's client drops (as an error) a notification it reads together with the answer.
      const sends = heard.filter((p) =>
        /app_mention .*→ http:\/\/127\.0\.0\.1:\d+\/slack: 500/.test(p.message ?? "")
      );
      assert.ok(sends.length >= 2, JSON.stringify(heard));
      assert.match(sends[0]!.message!, /^sent 1 delivery, the last app_mention → /);
      assert.match(sends[1]!.message!, /^sent 2 deliveries, the last app_mention \(retry\) → /);
      assert.ok(!heard.some((p) => /^sent 3/.test(p.message ?? "")), JSON.stringify(heard));
      // Progress only rises.
      assert.ok(heard.every((p, i) => i === 0 || p.progress > heard[i - 1]!.progress));
      // One delivery: the answer says it all, no notification before it.
      const once: unknown[] = [];
      const one = await mcp.call(
        "trigger",
        { provider: "slack", event: "app_mention", to: `http://127.0.0.1:${server.addr.port}/slack` },
        (p) => once.push(p),
      );
      assert.equal(one.structured!.deliveries.length, 1);
      assert.deepEqual(once, []);
    } finally {
      await server.shutdown();
    }
  },
});
