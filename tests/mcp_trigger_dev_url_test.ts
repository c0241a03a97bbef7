/**
 * `hooktap mcp`'s `trigger` with `to` the running dev's own URL is judged as a trigger into dev (dev answers
 * 200 to a bad signature unless the endpoint enforces; its verdict says whether it refused it), and a fault
 * an app accepted is said to be that, not "not all answered 2xx".
 */
import assert from "node:assert/strict";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { startMcp } from "./_mcp_client.ts";

Deno.test({
  name: "hooktap mcp: trigger to dev's URL gets dev's verdict and stored id; an accepted fault is named so",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "slack", path: "/slack", method: "POST", provider: "slack", secret: "s3" }] };\n`,
    );
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      await req.arrayBuffer();
      return new Response("fine by me"); // accepts anything: a bad signature too
    });
    try {
      await using dev = await startDev(tmp.path);
      await using mcp = await startMcp(tmp.path);
      const intoDev = await mcp.call("trigger", {
        provider: "slack",
        event: "app_mention",
        to: `${dev.url.replace("127.0.0.1", "localhost")}/slack`,
        bad_signature: true,
      });
      assert.equal(intoDev.isError, false, intoDev.text);
      const d = intoDev.structured!.deliveries[0];
      assert.equal(d.devVerdict, "invalid", intoDev.text);
      assert.match(d.storedEventId, /^evt_/);
      assert.equal(intoDev.structured!.ok, true);
      assert.match(intoDev.text, /^Sent: Slack app_mention, 1 delivery into hooktap dev\./);
      assert.match(intoDev.text, /dev's verdict: invalid, as the fault intends/);

      const accepted = await mcp.call("trigger", {
        provider: "slack",
        event: "app_mention",
        to: `http://127.0.0.1:${app.addr.port}/slack`,
        bad_signature: true,
      });
      assert.equal(accepted.structured!.ok, false);
      assert.equal(accepted.structured!.deliveries[0].status, 200);
      assert.doesNotMatch(accepted.text, /not all answered 2xx/);
      assert.match(accepted.text, /^Sent, 1 of 1 not as meant: Slack app_mention, 1 delivery\./);
      assert.match(accepted.text, /: 200 \(accepted, but it should have been refused\)/);
      // A handshake the app did not answer right says why, as the CLI's line does.
      const handshake = await mcp.call("trigger", {
        provider: "slack",
        event: "url_verification",
        to: `http://127.0.0.1:${app.addr.port}/slack`,
      });
      assert.match(handshake.structured!.deliveries[0].answerProblem, /needs its challenge back/);
      assert.match(handshake.text, /: 200 \(but Slack's url_verification needs its challenge back/);
    } finally {
      await app.shutdown();
    }
  },
});
