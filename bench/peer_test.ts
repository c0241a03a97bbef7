import assert from "node:assert/strict";
import { bindLoopback, LISTEN_ANY, LISTEN_LOOPBACK, listeners, peerDir } from "./peer.ts";

Deno.test("bindLoopback binds localhook's one app.listen to 127.0.0.1 and refuses a source without exactly one", () => {
  const source = `const a = 1;\n  const server = ${LISTEN_ANY}\n    console.log('up');\n  });\n`;
  assert.equal(bindLoopback(source), source.replace(LISTEN_ANY, LISTEN_LOOPBACK));
  assert.ok(bindLoopback(source).includes("app.listen(port, '127.0.0.1', async () => {"));
  assert.throws(() => bindLoopback("app.listen(port, '::', () => {});"), /exactly one/);
  assert.throws(() => bindLoopback(source + source), /exactly one/);
});

Deno.test("listeners reads a socket's listening address from /proc/net/tcp", {
  ignore: Deno.build.os !== "linux",
}, () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    assert.deepEqual(listeners((listener.addr as Deno.NetAddr).port), ["0100007F"]);
  } finally {
    listener.close();
  }
  const any = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  try {
    assert.deepEqual(listeners((any.addr as Deno.NetAddr).port), ["00000000"]);
  } finally {
    any.close();
  }
});

Deno.test("peerDir takes --peer-dir before BENCH_PEER_DIR, and neither means skipped", () => {
  const saved = Deno.env.get("BENCH_PEER_DIR");
  try {
    Deno.env.delete("BENCH_PEER_DIR");
    assert.equal(peerDir(undefined), undefined);
    Deno.env.set("BENCH_PEER_DIR", "/from/env");
    assert.equal(peerDir(undefined), "/from/env");
    assert.equal(peerDir("/from/flag"), "/from/flag");
    Deno.env.set("BENCH_PEER_DIR", "");
    assert.equal(peerDir(undefined), undefined);
  } finally {
    if (saved === undefined) Deno.env.delete("BENCH_PEER_DIR");
    else Deno.env.set("BENCH_PEER_DIR", saved);
  }
});
