import assert from "node:assert/strict";
import { buildEvent } from "../event/record.ts";
import { staleSignatureWarning } from "./signatures.ts";

const NOW = new Date("2024-05-01T12:00:00Z");
const secs = (minutesAgo: number) => String(Math.floor(NOW.getTime() / 1000) - minutesAgo * 60);

function withHeaders(headers: [string, string][]) {
  return buildEvent({
    id: "evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH",
    endpoint: "e",
    receivedAt: NOW,
    method: "POST",
    path: "/",
    query: "",
    headers,
    body: new Uint8Array(),
    remoteAddr: "",
  });
}

Deno.test("staleSignatureWarning() warns for Slack, Stripe, Standard Webhooks and Svix signatures older than 5 minutes", () => {
  const cases: [[string, string], string][] = [
    [["X-Slack-Request-Timestamp", secs(10)], "Slack"],
    [["Stripe-Signature", `t=${secs(90)},v1=abc,v0=def`], "Stripe"],
    [["webhook-timestamp", secs(6)], "Standard Webhooks"],
    [["svix-timestamp", secs(600)], "Svix"],
  ];
  for (const [header, name] of cases) {
    assert.match(
      staleSignatureWarning(withHeaders([header]), NOW) ?? "",
      new RegExp(`a ${name} signature made`),
    );
  }
});

Deno.test("staleSignatureWarning() stays quiet within the tolerance and for body-only schemes", () => {
  assert.equal(staleSignatureWarning(withHeaders([["x-slack-request-timestamp", secs(4)]]), NOW), undefined);
  assert.equal(staleSignatureWarning(withHeaders([["x-hub-signature-256", "sha256=00"]]), NOW), undefined);
  assert.equal(staleSignatureWarning(withHeaders([["stripe-signature", "v1=abc"]]), NOW), undefined);
});
