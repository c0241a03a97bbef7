import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash, createHmac } from "node:crypto";
import { fromBase64, fromHex, hmac, hmacParts, sha256Hex, toBase64, toHex, withWebCrypto } from "./hmac.ts";

const BODY = new TextEncoder().encode('{"text":"héllo ☃"}');

Deno.test("hmac: node:crypto and WebCrypto give node's own digests, for each algorithm", async () => {
  for (const algorithm of ["sha1", "sha256", "sha512"] as const) {
    const expected = new Uint8Array(createHmac(algorithm, "s3cret").update(BODY).digest());
    assert.deepEqual(hmac(algorithm, "s3cret", BODY), expected);
    assert.deepEqual(await withWebCrypto(() => hmac(algorithm, "s3cret", BODY)), expected);
  }
  const parts = ["v0:", "1700000000", ":", BODY] as const;
  const joined = createHmac("sha256", new Uint8Array([1, 2, 3])).update("v0:1700000000:").update(BODY)
    .digest();
  assert.deepEqual(
    await withWebCrypto(() => hmacParts("sha256", new Uint8Array([1, 2, 3]), parts)),
    new Uint8Array(joined),
  );
  assert.equal(await withWebCrypto(() => sha256Hex(BODY)), createHash("sha256").update(BODY).digest("hex"));
});

Deno.test("withWebCrypto: a digest of a digest settles, and a random id is the same in every pass", async () => {
  const chained = () => toHex(hmac("sha256", hmac("sha256", "k", "date"), "msg"));
  const inner = createHmac("sha256", "k").update("date").digest();
  assert.equal(await withWebCrypto(chained), createHmac("sha256", inner).update("msg").digest("hex"));
  const signed = await withWebCrypto(() => {
    const id = crypto.randomUUID();
    return { id, sig: toHex(hmac("sha256", "k", id)) };
  });
  assert.equal(signed.sig, createHmac("sha256", "k").update(signed.id).digest("hex"));
  // The swap is over: node:crypto answers again.
  assert.deepEqual(hmac("sha1", "k", "x"), new Uint8Array(createHmac("sha1", "k").update("x").digest()));
});

Deno.test("hex and base64 decode as node's Buffer does (base64url, no padding, a lone last character)", () => {
  const bytes = new Uint8Array(Array.from({ length: 300 }, (_, i) => (i * 37) % 256));
  assert.equal(toHex(bytes), Buffer.from(bytes).toString("hex"));
  assert.equal(toBase64(bytes), Buffer.from(bytes).toString("base64"));
  assert.deepEqual(fromHex(toHex(bytes)), bytes);
  assert.equal(fromHex("abc"), undefined);
  assert.equal(fromHex("zz"), undefined);
  for (const text of ["aGVsbG8=", "aGVsbG8", "aGVsbG8-_w", "aGVsbG8+/w==", "aGVsbG8gd", "QQ"]) {
    assert.deepEqual(fromBase64(text), new Uint8Array(Buffer.from(text, "base64")), text);
  }
  assert.equal(fromBase64("not base64!"), undefined);
});
