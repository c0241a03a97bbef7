/**
 * HMAC-SHA256 of a webhook-sized body: node:crypto createHmac against
 * crypto.subtle (key imported once, and per call), and the cost of
 * examineRequest per request. `deno bench -A bench/hmac_bench.ts`
 * @module
 */
import { createHmac } from "node:crypto";
import { examineRequest } from "../src/providers/examine.ts";
import { createView } from "../src/providers/view.ts";

const secret = "It's a Secret to Everybody";
const small = new TextEncoder().encode(
  JSON.stringify({ action: "opened", issue: { id: 1, title: "x".repeat(900) } }),
);
const large = new Uint8Array(256 * 1024).fill(97);
const key = await crypto.subtle.importKey(
  "raw",
  new TextEncoder().encode(secret),
  { name: "HMAC", hash: "SHA-256" },
  false,
  ["sign"],
);

for (const [label, body] of [["1 KiB", small], ["256 KiB", large]] as const) {
  Deno.bench(
    `node:crypto createHmac, ${label}`,
    { group: label, baseline: true, n: 20000, warmup: 2000 },
    () => {
      createHmac("sha256", secret).update(body).digest();
    },
  );
  Deno.bench(
    `crypto.subtle.sign, key imported once, ${label}`,
    { group: label, n: 20000, warmup: 2000 },
    async () => {
      await crypto.subtle.sign("HMAC", key, body);
    },
  );
  Deno.bench(
    `crypto.subtle importKey + sign, ${label}`,
    { group: label, n: 20000, warmup: 2000 },
    async () => {
      const k = await crypto.subtle.importKey(
        "raw",
        new TextEncoder().encode(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      await crypto.subtle.sign("HMAC", k, body);
    },
  );
}

const sig = "sha256=" + createHmac("sha256", secret).update(small).digest("hex");
const settings = { secrets: [secret], tolerance: 300, enforce: false };
const none = { secrets: [], tolerance: 300, enforce: false };
const view = (headers: [string, string][]) =>
  createView({ method: "POST", path: "/hook", query: "", headers, body: small, receivedAt: new Date() });
Deno.bench("examineRequest: unknown sender, no settings", {
  group: "examine",
  baseline: true,
  n: 20000,
  warmup: 2000,
}, async () => {
  await examineRequest(view([["content-type", "application/json"], ["user-agent", "curl/8"]]), none);
});
Deno.bench(
  "examineRequest: GitHub, sha256 verified",
  { group: "examine", n: 20000, warmup: 2000 },
  async () => {
    await examineRequest(
      view([["content-type", "application/json"], ["x-github-event", "issues"], [
        "x-hub-signature-256",
        sig,
      ]]),
      settings,
    );
  },
);
