import assert from "node:assert/strict";
import { contentCoding, decodeAnswer } from "./answer_decode.ts";

async function compress(format: CompressionFormat, bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream(format),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const text = new TextEncoder().encode('{"error":"boom"}');

Deno.test("decodeAnswer decodes gzip, x-gzip and deflate answers, and says which", async () => {
  for (const [coding, format] of [["gzip", "gzip"], ["X-Gzip", "gzip"], ["deflate", "deflate"]] as const) {
    const decoded = await decodeAnswer([["Content-Encoding", coding]], await compress(format, text), 65536);
    assert.ok(decoded, coding);
    assert.equal(new TextDecoder().decode(decoded.bytes), '{"error":"boom"}');
    assert.equal(decoded.from, coding.toLowerCase());
    assert.equal(decoded.partial, false);
  }
});

Deno.test("decodeAnswer leaves alone an answer with no coding, an unknown one, or two", async () => {
  const gz = await compress("gzip", text);
  assert.equal(await decodeAnswer([["content-type", "application/json"]], gz, 65536), undefined);
  assert.equal(await decodeAnswer([["content-encoding", "zstd"]], gz, 65536), undefined);
  assert.equal(contentCoding([["content-encoding", "gzip"], ["content-encoding", "gzip"]]), undefined);
  assert.equal(contentCoding([["content-encoding", "identity"]]), undefined);
  // Bytes that are not gzip at all: nothing decodes, so the record keeps them as they came.
  assert.equal(await decodeAnswer([["content-encoding", "gzip"]], text, 65536), undefined);
});

Deno.test("decodeAnswer keeps what decodes of a cut answer and says it is partial", async () => {
  const long = new TextEncoder().encode("line of the app's stack trace\n".repeat(2000));
  const gz = await compress("gzip", long);
  const decoded = await decodeAnswer([["content-encoding", "gzip"]], gz.subarray(0, gz.length - 20), 1 << 20);
  assert.ok(decoded);
  assert.equal(decoded.partial, true);
  assert.ok(decoded.bytes.length > 0 && decoded.bytes.length < long.length, String(decoded.bytes.length));
  assert.deepEqual(decoded.bytes, long.subarray(0, decoded.bytes.length));
});

Deno.test("decodeAnswer stops at the cap: a 64 MiB gzip bomb yields 64 KiB, marked partial", async () => {
  const zeros = new Uint8Array(64 * 1024 * 1024);
  const bomb = await compress("gzip", zeros); // about 64 KiB that expand a thousandfold
  assert.ok(bomb.length < 200 * 1024, String(bomb.length));
  const decoded = await decodeAnswer([["content-encoding", "gzip"]], bomb, 65536);
  assert.ok(decoded);
  assert.equal(decoded.bytes.length, 65536);
  assert.equal(decoded.partial, true);
});

Deno.test("decodeAnswer decodes a Brotli (br) answer", async () => {
  const { brotliCompressSync } = await import("node:zlib");
  const decoded = await decodeAnswer(
    [["content-encoding", "br"]],
    new Uint8Array(brotliCompressSync(text)),
    65536,
  );
  assert.ok(decoded);
  assert.equal(new TextDecoder().decode(decoded.bytes), '{"error":"boom"}');
  assert.equal(decoded.from, "br");
});

Deno.test("decodeAnswer keeps the decoded start of a cut Brotli answer, and stops a Brotli bomb at the cap", async () => {
  const { brotliCompressSync } = await import("node:zlib");
  const lines = Array.from(
    { length: 20000 },
    (_, i) => `line ${i * 7919 % 10007} of the app's stack trace\n`,
  );
  const long = new TextEncoder().encode(lines.join(""));
  const br = new Uint8Array(brotliCompressSync(long));
  const cut = await decodeAnswer([["content-encoding", "br"]], br.subarray(0, br.length - 20), 1 << 20);
  assert.ok(cut);
  // Deno's node:zlib (2.9) ends a cut Brotli stream without an error: the cut is still said.
  assert.equal(cut.partial, true);
  assert.ok(cut.bytes.length > 0 && cut.bytes.length < long.length, String(cut.bytes.length));
  assert.deepEqual(cut.bytes, long.subarray(0, cut.bytes.length));
  const capped = await decodeAnswer([["content-encoding", "br"]], br, 65536);
  assert.ok(capped);
  assert.equal(capped.bytes.length, 65536);
  assert.equal(capped.partial, true);
  assert.deepEqual(capped.bytes, long.subarray(0, 65536));
  assert.equal(await decodeAnswer([["content-encoding", "br"]], long, 65536), undefined); // not Brotli at all
});
