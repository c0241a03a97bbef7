import assert from "node:assert/strict";
import http from "node:http";
import { encodeRequest, Http1Error, Http1Pool } from "./http1.ts";

const OPTS = { timeoutMs: 5000, maxBody: 64 * 1024 };
const enc = new TextEncoder();
const dec = new TextDecoder();

function post(port: number, body: string | Uint8Array, extra: [string, string][] = []) {
  const bytes = typeof body === "string" ? enc.encode(body) : body;
  return {
    method: "POST",
    target: "/hook?x=1",
    headers: [["Host", `127.0.0.1:${port}`], ...extra, ["Content-Length", String(bytes.length)]] as [
      string,
      string,
    ][],
    body: bytes,
  };
}

/** A raw TCP server: hands each connection's bytes to `handle`, which writes the answer itself. */
function rawServer(handle: (conn: Deno.Conn, request: string, n: number) => Promise<void> | void) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let n = 0;
  const conns = new Set<Deno.Conn>();
  const loop = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      (async () => {
        const buf = new Uint8Array(65536);
        let text = "";
        try {
          while (true) {
            const r = await conn.read(buf);
            if (r === null) break;
            text += dec.decode(buf.subarray(0, r));
            // One request at a time: headers plus Content-Length bytes.
            while (true) {
              const end = text.indexOf("\r\n\r\n");
              if (end < 0) break;
              const len = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
              if (text.length < end + 4 + len) break;
              const request = text.slice(0, end + 4 + len);
              text = text.slice(end + 4 + len);
              await handle(conn, request, n++);
            }
          }
        } catch { /* closed */ }
        conns.delete(conn);
        try {
          conn.close();
        } catch { /* closed */ }
      })();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    get count() {
      return n;
    },
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await loop;
    },
  };
}

Deno.test("sends header case, order and repeats exactly, nothing added; one buffer", async () => {
  const seen: string[] = [];
  const server = rawServer(async (conn, request) => {
    seen.push(request);
    await conn.write(enc.encode("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
  });
  const pool = new Http1Pool();
  try {
    const headers: [string, string][] = [["X-GitHub-Event", "push"], ["x-dup", "1"], ["X-Dup", "2"], [
      "content-type",
      "application/json",
    ]];
    const r = await pool.request(
      { hostname: "127.0.0.1", port: server.port },
      post(server.port, "{}", headers),
      OPTS,
    );
    assert.equal(r.status, 200);
    assert.equal(dec.decode(r.body), "ok");
    assert.equal(
      seen[0],
      `POST /hook?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-GitHub-Event: push\r\nx-dup: 1\r\nX-Dup: 2\r\n` +
        `content-type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    );
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("encodeRequest: exactly the request line, the headers as given (latin-1), the blank line and the body", () => {
  const bytes = encodeRequest({
    method: "POST",
    target: "/hook?x=1",
    headers: [["Host", "a:1"], ["X-Name", "caf\u00e9"], ["x-dup", "1"], ["X-Dup", "2"]],
    body: new TextEncoder().encode("{}"),
  });
  const expected =
    "POST /hook?x=1 HTTP/1.1\r\nHost: a:1\r\nX-Name: caf\u00e9\r\nx-dup: 1\r\nX-Dup: 2\r\n\r\n{}";
  assert.equal(bytes.length, expected.length);
  assert.deepEqual([...bytes], [...expected].map((c) => c.charCodeAt(0)));
  const bare = encodeRequest({ method: "GET", target: "/", headers: [], body: null });
  assert.equal(new TextDecoder().decode(bare), "GET / HTTP/1.1\r\n\r\n");
  const hosted = encodeRequest({
    method: "GET",
    target: "/",
    host: "b:2",
    headers: [["X-A", "1"]],
    body: null,
  });
  assert.equal(new TextDecoder().decode(hosted), "GET / HTTP/1.1\r\nHost: b:2\r\nX-A: 1\r\n\r\n");
});

Deno.test("refuses header injection", () => {
  assert.throws(
    () => encodeRequest({ method: "POST", target: "/", headers: [["X-A", "1\r\nX-B: 2"]], body: null }),
    Http1Error,
  );
  assert.throws(
    () => encodeRequest({ method: "POST", target: "/", headers: [["X A", "1"]], body: null }),
    Http1Error,
  );
});

Deno.test("Deno.serve: keep-alive reuse, response headers in order, a 1 MiB body both ways, the cap", async () => {
  const big = new Uint8Array(1024 * 1024).map((_, i) => i % 251);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = new Uint8Array(await req.arrayBuffer());
    if (req.headers.get("x-want") === "big") {
      return new Response(big, { headers: { "X-Len": String(body.length) } });
    }
    const h = new Headers([["x-b", "2"], ["x-a", "1"]]);
    h.append("set-cookie", "a=1");
    h.append("set-cookie", "b=2");
    return new Response(`got ${body.length}`, { status: 201, statusText: "Created", headers: h });
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.addr.port };
  try {
    const r1 = await pool.request(origin, post(origin.port, big), OPTS);
    assert.equal(r1.status, 201);
    assert.equal(r1.statusText, "Created");
    assert.equal(dec.decode(r1.body), `got ${big.length}`);
    assert.deepEqual(r1.headers.filter(([n]) => n.startsWith("set-cookie")), [["set-cookie", "a=1"], [
      "set-cookie",
      "b=2",
    ]]);
    assert.equal(pool.idleCount(origin), 1);
    const r2 = await pool.request(origin, post(origin.port, "x", [["x-want", "big"]]), {
      ...OPTS,
      maxBody: 2 * 1024 * 1024,
    });
    assert.deepEqual(r2.body, big);
    assert.equal(r2.bodySize, big.length);
    const r3 = await pool.request(origin, post(origin.port, "x", [["x-want", "big"]]), {
      ...OPTS,
      maxBody: 10,
    });
    assert.deepEqual(r3.body, big.subarray(0, 10));
    assert.equal(r3.bodySize, big.length);
    assert.ok(r3.truncated);
    assert.equal(pool.idleCount(origin), 1, "one connection served all three");
  } finally {
    pool.close();
    await server.shutdown();
  }
});

Deno.test("node:http: chunked answers, HEAD, 204 and 304 without a body, Connection: close", async () => {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/chunked") {
        res.writeHead(500, { "content-type": "text/plain" });
        res.write("TypeError: boom\n");
        setTimeout(() => res.end("    at handler (app.js:1:1)\n"), 10);
      } else if (req.url === "/204") {
        res.writeHead(204).end();
      } else if (req.url === "/304") {
        res.writeHead(304, { etag: '"x"' }).end();
      } else if (req.url === "/close") {
        res.writeHead(200, { connection: "close", "content-length": "3" }).end("bye");
      } else {
        res.writeHead(200, { "content-length": "5" }).end(req.method === "HEAD" ? undefined : "hello");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const origin = { hostname: "127.0.0.1", port };
  const pool = new Http1Pool();
  const get = (target: string, method = "GET") =>
    pool.request(origin, { method, target, headers: [["Host", `127.0.0.1:${port}`]], body: null }, OPTS);
  try {
    const c = await get("/chunked");
    assert.equal(c.status, 500);
    assert.equal(dec.decode(c.body), "TypeError: boom\n    at handler (app.js:1:1)\n");
    assert.ok(c.headers.some(([n, v]) => n.toLowerCase() === "transfer-encoding" && v === "chunked"));
    const h = await get("/", "HEAD");
    assert.equal(h.status, 200);
    assert.equal(h.bodySize, 0);
    assert.equal((await get("/204")).status, 204);
    assert.equal((await get("/304")).status, 304);
    assert.equal(dec.decode((await get("/")).body), "hello", "the connection is still in step after them");
    assert.equal(pool.idleCount(origin), 1);
    assert.equal(dec.decode((await get("/close")).body), "bye");
    assert.equal(pool.idleCount(origin), 0, "Connection: close is not pooled");
  } finally {
    pool.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

Deno.test("a kept-alive connection the server closed is retried once on a fresh one", async () => {
  const server = rawServer(async (conn, _request, n) => {
    await conn.write(enc.encode(`HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}`));
    conn.close(); // closes without saying Connection: close
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.port };
  try {
    assert.equal(dec.decode((await pool.request(origin, post(server.port, "a"), OPTS)).body), "0");
    assert.equal(pool.idleCount(origin), 1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(dec.decode((await pool.request(origin, post(server.port, "b"), OPTS)).body), "1");
    assert.equal(server.count, 2, "the request reached the server once, on the fresh connection");
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("a pooled connection the server closes while it waits is dropped then, and the next request connects anew", async () => {
  let first: Deno.Conn | undefined;
  const server = rawServer(async (conn, _request, n) => {
    first ??= conn;
    await conn.write(enc.encode(`HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}`));
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.port };
  try {
    await pool.request(origin, post(server.port, "a"), OPTS);
    assert.equal(pool.idleCount(origin), 1);
    first!.close(); // the app's keep-alive timeout
    for (let i = 0; i < 100 && pool.idleCount(origin) > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(pool.idleCount(origin), 0, "seen closed while idle");
    assert.equal(dec.decode((await pool.request(origin, post(server.port, "b"), OPTS)).body), "1");
    assert.equal(server.count, 2);
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("a kept-alive connection the server closes after reading the request is an error, never a second send", async () => {
  const server = rawServer(async (conn, _request, n) => {
    if (n === 1) return conn.close(); // read it (an app that took the webhook), then dropped the connection
    await conn.write(enc.encode(`HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}`));
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.port };
  try {
    await pool.request(origin, post(server.port, "a"), OPTS);
    await assert.rejects(
      pool.request(origin, post(server.port, "b"), OPTS),
      (e: unknown) => e instanceof Http1Error && e.kind === "reset",
    );
    assert.equal(server.count, 2, "the app got the request once: not sent again on a fresh connection");
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("no retry once part of the answer came; a fresh connection closing early is an error", async () => {
  const server = rawServer(async (conn) => {
    await conn.write(enc.encode("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));
    conn.close();
  });
  const pool = new Http1Pool();
  try {
    await assert.rejects(
      pool.request({ hostname: "127.0.0.1", port: server.port }, post(server.port, "a"), OPTS),
      (e: unknown) => e instanceof Http1Error && e.kind === "reset",
    );
    assert.equal(server.count, 1);
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("a slow server: timeout, and the connection is not reused", async () => {
  const server = rawServer(async (conn, _request, n) => {
    if (n === 0) return; // never answers
    await conn.write(enc.encode("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.port };
  try {
    await assert.rejects(
      pool.request(origin, post(server.port, "a"), { ...OPTS, timeoutMs: 150 }),
      (e: unknown) => e instanceof Http1Error && e.kind === "timeout",
    );
    assert.equal(pool.idleCount(origin), 0);
    assert.equal((await pool.request(origin, post(server.port, "b"), OPTS)).status, 200);
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("one request at a time: each times out, with the ticker kept idle between them or stopped after", async () => {
  const server = rawServer(async (conn, request) => {
    if (request.includes("\r\n\r\nsilent")) return; // never answers
    await conn.write(enc.encode("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.port };
  const timedOut = (e: unknown) => e instanceof Http1Error && e.kind === "timeout";
  try {
    for (const pause of [0, 200]) {
      // Answered (the ticker outlives it, idle), then one that never is: it must still time out, on the
      // idle ticker (no pause) or on a new one (the idle one stopped itself at its tick meanwhile).
      assert.equal((await pool.request(origin, post(server.port, "ok"), OPTS)).status, 200);
      await new Promise((r) => setTimeout(r, pause));
      await assert.rejects(
        pool.request(origin, post(server.port, "silent"), { ...OPTS, timeoutMs: 150 }),
        timedOut,
      );
    }
    assert.equal((await pool.request(origin, post(server.port, "ok"), OPTS)).status, 200);
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("a one-shot request (reuse: false) times out on its own timer; one past the longest timer waits", async () => {
  const server = rawServer(async (conn, request) => {
    if (request.includes("\r\n\r\nslow")) await new Promise((r) => setTimeout(r, 300));
    else if (request.includes("\r\n\r\nsilent")) return; // never answers
    await conn.write(enc.encode("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.port };
  const once = { ...OPTS, reuse: false };
  try {
    const began = performance.now();
    await assert.rejects(
      pool.request(origin, post(server.port, "silent"), { ...once, timeoutMs: 150 }),
      (e: unknown) => e instanceof Http1Error && e.kind === "timeout" && /150 ms/.test(e.message),
    );
    const waited = performance.now() - began;
    assert.ok(waited >= 140 && waited < 4000, `timed out after ${waited} ms`);
    // A timeout longer than a timer can hold (2^31 ms) must not fire at once: the answer comes in 300 ms.
    const late = await pool.request(origin, post(server.port, "slow"), { ...once, timeoutMs: 2 ** 32 });
    assert.equal(late.status, 200);
    // Answered in time: the timer does not cut it, and nothing is pooled.
    assert.equal((await pool.request(origin, post(server.port, "a"), once)).status, 200);
    assert.equal(pool.idleCount(origin), 0);
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("redirects are answers, never followed; refused connections throw the runtime's error", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(null, { status: 302, headers: { location: "/elsewhere" } }),
  );
  const pool = new Http1Pool();
  try {
    const r = await pool.request(
      { hostname: "127.0.0.1", port: server.addr.port },
      post(server.addr.port, ""),
      OPTS,
    );
    assert.equal(r.status, 302);
  } finally {
    pool.close();
    await server.shutdown();
  }
  await assert.rejects(
    pool.request({ hostname: "127.0.0.1", port: server.addr.port }, post(server.addr.port, ""), OPTS),
    Deno.errors.ConnectionRefused,
  );
});

Deno.test("an app that stopped with several kept-alive connections: the next request says it is refused", async () => {
  const server = rawServer(async (conn, _request, n) => {
    await new Promise((r) => setTimeout(r, 30)); // both requests in flight at once: two connections
    await conn.write(enc.encode(`HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}`));
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.port };
  try {
    await Promise.all([
      pool.request(origin, post(server.port, "a"), OPTS),
      pool.request(origin, post(server.port, "b"), OPTS),
    ]);
    assert.equal(pool.idleCount(origin), 2);
    await server.close(); // the app stops: its connections close, nothing listens any more
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(pool.request(origin, post(server.port, "c"), OPTS), Deno.errors.ConnectionRefused);
    assert.equal(pool.idleCount(origin), 0);
  } finally {
    pool.close();
  }
});

Deno.test("a kept-alive connection's reused write buffer sends each request's own bytes: large, small, empty, then larger than the buffer", async () => {
  const seen: string[] = [];
  const server = rawServer(async (conn, request) => {
    seen.push(request);
    await conn.write(enc.encode("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
  });
  const pool = new Http1Pool();
  const origin = { hostname: "127.0.0.1", port: server.port };
  try {
    const bodies = ["a".repeat(5000), "b", "", "c".repeat(20_000), "d".repeat(3)];
    for (const [i, body] of bodies.entries()) {
      const r = await pool.request(origin, post(server.port, body, [["X-N", String(i)]]), OPTS);
      assert.equal(r.status, 200);
      assert.equal(pool.idleCount(origin), 1, "one connection, kept alive");
    }
    assert.deepEqual(
      seen,
      bodies.map((body, i) =>
        `POST /hook?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-N: ${i}\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`
      ),
    );
  } finally {
    pool.close();
    await server.close();
  }
});

Deno.test("answer heads read whole in the first read and split across reads alike: status lines, interim answers, framing, keep-alive", async () => {
  // Each case's answer, by the request's path; `|` splits it into writes 30 ms apart (the answer's first
  // read then holds part of it: the reading path after the buffered one).
  const answers: Record<string, string> = {
    bare: "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok",
    space: "HTTP/1.1 201 \r\nContent-Length: 0\r\n\r\n",
    text: "HTTP/1.1 418 I'm a teapot, really\r\nX-A:  padded value \t\r\nCONTENT-LENGTH: 3\r\n\r\ntea",
    interim: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    http10: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    http10keep: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok",
    close: "HTTP/1.1 200 OK\r\nconnection: close\r\nContent-Length: 2\r\n\r\nok",
    chunked: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
    nobody: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
    v2: "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n",
    v12: "HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n",
    long: "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
    letters: "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
    cr: "HTTP/1.1 200 O\rK\r\nContent-Length: 0\r\n\r\n",
    switched: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n",
    badLength: "HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nok",
  };
  let split = false;
  const server = rawServer(async (conn, request) => {
    const answer = answers[request.slice(request.indexOf("/") + 1, request.indexOf(" HTTP/"))]!;
    const parts = split ? [answer.slice(0, answer.length >> 1), answer.slice(answer.length >> 1)] : [answer];
    for (const [i, part] of parts.entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, 30));
      await conn.write(enc.encode(part));
    }
  });
  const origin = { hostname: "127.0.0.1", port: server.port };
  try {
    for (const whole of [true, false]) {
      split = !whole;
      const pool = new Http1Pool();
      const get = (path: string) =>
        pool.request(origin, { method: "GET", target: `/${path}`, host: "x", headers: [], body: null }, OPTS);
      const seen = async (path: string) => {
        const r = await get(path);
        const kept = pool.idleCount(origin);
        pool.close();
        return {
          status: r.status,
          statusText: r.statusText,
          headers: r.headers,
          body: dec.decode(r.body),
          kept,
        };
      };
      const how = whole ? "whole" : "split";
      assert.deepEqual(await seen("bare"), {
        status: 200,
        statusText: "",
        headers: [["Content-Length", "2"]],
        body: "ok",
        kept: 1,
      }, how);
      assert.equal((await seen("space")).statusText, "", how);
      assert.deepEqual(await seen("text"), {
        status: 418,
        statusText: "I'm a teapot, really",
        headers: [["X-A", "padded value"], ["CONTENT-LENGTH", "3"]],
        body: "tea",
        kept: 1,
      }, how);
      const interim = await seen("interim");
      assert.deepEqual([interim.status, interim.body, interim.kept], [200, "ok", 1], how);
      assert.equal((await seen("http10")).kept, 0, how);
      assert.equal((await seen("http10keep")).kept, 1, how);
      assert.equal((await seen("close")).kept, 0, how);
      assert.deepEqual([(await seen("chunked")).body, (await seen("nobody")).body], ["ok", ""], how);
      for (const path of ["v2", "v12", "long", "letters", "cr", "switched", "badLength"]) {
        await assert.rejects(
          get(path),
          (e) => e instanceof Http1Error && e.kind === "protocol",
          `${path} ${how}`,
        );
        pool.close();
      }
      await assert.rejects(get("v2"), /not an HTTP\/1\.x answer: "HTTP\/2 200 OK"/);
      pool.close();
    }
  } finally {
    await server.close();
  }
});
