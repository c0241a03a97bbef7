import assert from "node:assert/strict";
import { fakeApi, fixture } from "../../tests/_tunnel_fake.ts";
import { detectTunnels, parseNgrokTunnels } from "./detect.ts";

const CLOSED = "http://127.0.0.1:9"; // discard port: nothing listens

Deno.test("detectTunnels() reads ngrok v3's recorded /api/tunnels answer: public URL and local port", async () => {
  await using ngrok = fakeApi("/api/tunnels", await fixture("ngrok_v3_tunnels.json"));
  const found = await detectTunnels({ ngrokApi: ngrok.url, cloudflaredMetrics: [CLOSED] });
  assert.deepEqual(found, [{
    tool: "ngrok",
    publicUrl: "https://3f2a-203-0-113-7.ngrok-free.app",
    localAddr: "http://localhost:8787",
    localPort: 8787,
  }]);
});

Deno.test("an ngrok v2 answer lists http and https for one forward: the https one is kept", async () => {
  const found = parseNgrokTunnels(JSON.parse(await fixture("ngrok_v2_tunnels.json")));
  assert.deepEqual(found.map((t) => [t.publicUrl, t.localPort]), [["https://d95211d2.ngrok.io", 3000]]);
});

Deno.test("detectTunnels() finds a cloudflared quick tunnel on any of its metrics ports, without a port", async () => {
  await using cf = fakeApi("/quicktunnel", await fixture("cloudflared_quicktunnel.json"));
  const found = await detectTunnels({ ngrokApi: CLOSED, cloudflaredMetrics: [CLOSED, cf.url] });
  assert.deepEqual(found, [{
    tool: "cloudflared",
    publicUrl: "https://seasonal-deck-organisms-sf.trycloudflare.com",
  }]);
});

Deno.test("detectTunnels() answers [] when nothing listens or the answer is not a tunnel list", async () => {
  assert.deepEqual(await detectTunnels({ ngrokApi: CLOSED, cloudflaredMetrics: [CLOSED] }), []);
  await using wrong = fakeApi("/api/tunnels", '{"error":"nope"}');
  await using html = fakeApi("/quicktunnel", "<html>");
  assert.deepEqual(await detectTunnels({ ngrokApi: wrong.url, cloudflaredMetrics: [html.url] }), []);
});
