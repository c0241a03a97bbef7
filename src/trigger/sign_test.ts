import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { signDelivery } from "./sign.ts";

const BODY = new TextEncoder().encode(JSON.stringify({ zen: "Keep it logically awesome.", n: "é" }));
const hex = (algorithm: string, secret: string) => createHmac(algorithm, secret).update(BODY).digest("hex");

for (const provider of ["github", "meta"]) {
  Deno.test(`${provider}: both digests, SHA-256 and the legacy SHA-1, in the draft's places`, async () => {
    const signed = await signDelivery(
      provider,
      {
        method: "POST",
        url: "http://127.0.0.1:3000/hook",
        headers: [["Content-Type", "application/json"], ["X-Hub-Signature", ""], ["X-Hub-Signature-256", ""]],
        body: BODY,
      },
      { secret: "s3cret" },
      new Date(),
    );
    assert.equal(signed.with, "secret");
    assert.deepEqual(signed.headers, [
      ["Content-Type", "application/json"],
      ["X-Hub-Signature", `sha1=${hex("sha1", "s3cret")}`],
      ["X-Hub-Signature-256", `sha256=${hex("sha256", "s3cret")}`],
    ]);
  });
}
