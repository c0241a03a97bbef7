/**
 * `hooktap mcp`'s `replay` names no CLI option the tool lacks as the way out: a changed body of an event
 * stored invalid is not "--resign-invalid signs it anyway" (no such input), and `set` on a body that is
 * neither JSON nor a form points at the CLI's `hooktap replay --body-file`, not at a `--body-file` input.
 */
import assert from "node:assert/strict";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { startMcp } from "./_mcp_client.ts";

Deno.test({
  name: "hooktap mcp: replay's warnings and refusals name no option the tool lacks",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "shop", path: "/shop", method: "POST", provider: "shopify", secret: "s" }] };\n`,
    );
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      await req.arrayBuffer();
      return new Response("ok");
    });
    try {
      await using dev = await startDev(tmp.path);
      const post = async (body: string, contentType: string) => {
        const r = await fetch(`${dev.url}/shop`, {
          method: "POST",
          headers: {
            "content-type": contentType,
            "X-Shopify-Hmac-Sha256": "d3Jvbmc=",
            "X-Shopify-Topic": "orders/create",
          },
          body,
        });
        return (await r.json()).id as string;
      };
      const invalid = await post(`{"id":1}`, "application/json");
      const text = await post("plain words", "text/plain");
      await using mcp = await startMcp(tmp.path);
      const to = `http://127.0.0.1:${app.addr.port}/hook`;
      const changed = await mcp.call("replay", { id: invalid, to, set: ["id=2"] });
      assert.equal(changed.isError, false, changed.text);
      assert.match(changed.structured!.results[0].warning, /its stored signature was invalid/);
      assert.doesNotMatch(changed.text, /--resign-invalid/);
      const neither = await mcp.call("replay", { id: text, to, set: ["a=1"] });
      assert.equal(neither.isError, true);
      assert.match(
        neither.text,
        /this body is neither; the CLI's `hooktap replay --body-file` sends another body/,
      );
      assert.doesNotMatch(neither.text, /use --body-file/);
    } finally {
      await app.shutdown();
    }
  },
});
