/**
 * Hostile and odd input against a real `hooktap dev` over raw sockets: each
 * request is answered correctly (stored, 404, 405, 413, 400 or 431), never
 * crashes the receiver, and the next normal request is served. At the end
 * the log holds exactly the requests that were acknowledged, byte-exact, and
 * nothing a payload carried reached the terminal raw.
 * @module
 */
import assert from "node:assert/strict";
import { decodeBody } from "../../src/event/record.ts";
import { LEAST_PRIVILEGE, readEvents, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { concatBytes as concat } from "../../src/bytes.ts";
import { HttpConn, type RawResponse, requestBytes } from "./_http.ts";

const LIMIT = 4096;
const CONFIG = `export default {
  port: 8787,
  maxBodySize: ${LIMIT},
  endpoints: [
    { name: "default", path: "/webhook", method: "POST" },
    { name: "dav", path: "/dav", method: ["PROPFIND", "HEAD", "OPTIONS", "GET"] },
  ],
};
`;

const enc = new TextEncoder();
const bytes = (...b: number[]) => new Uint8Array(b);

interface Expected {
  method: string;
  path: string;
  query: string;
  body: Uint8Array;
  encoding?: "utf8" | "base64";
  /** These headers, in this order and case, among the stored ones. */
  headers?: [string, string][];
}

type Outcome = RawResponse | "closed" | "timeout";

/** Sends raw bytes on a fresh connection; the response, or how the connection ended. */
async function exchange(
  port: number,
  raw: Uint8Array | string,
  options: { head?: boolean; timeoutMs?: number; hangUp?: boolean } = {},
): Promise<Outcome> {
  const conn = await HttpConn.open(port);
  try {
    await conn.send(raw).catch(() => {}); // the server may close early (413, 431) while we still send
    if (options.hangUp) return "closed";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((
      r,
    ) => (timer = setTimeout(() => r("timeout"), options.timeoutMs ?? 3000)));
    const got = await Promise.race([
      conn.readResponse(options.head ?? false).catch(() => "closed" as const),
      timeout,
    ]);
    clearTimeout(timer);
    return got;
  } finally {
    conn.close();
  }
}

function statusOf(o: Outcome): number | string {
  return typeof o === "string" ? o : o.status;
}

// This config accepts GET and HEAD, so dev picks node:http; the suite runs on both stacks.
for (const stack of ["node", "deno"] as const) {
  Deno.test(`hostile and odd requests are each answered correctly, never crash dev, and the next request is served (${stack} stack)`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
    await using dev = await startDev(tmp.path, [], {
      permissions: [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_STACK"],
      env: { HOOKTAP_STACK: stack },
    });
    assert.match(dev.stderr(), stack === "node" ? /Server: node:http/ : /Server: Deno\.serve/);
    const { port } = dev;
    const expected: Expected[] = [];
    let tried = 0;
    const seen: string[] = [];
    let normals = 0;

    /** A plain request after each hostile one: it must be stored and answered 200. */
    const normal = async (after: string) => {
      const body = enc.encode(`normal #${++normals}`);
      const got = await exchange(port, requestBytes({ body, headers: [["content-type", "text/plain"]] }));
      assert.equal(statusOf(got), 200, `dev did not serve a normal request after: ${after}\n${dev.stderr()}`);
      expected.push({ method: "POST", path: "/webhook", query: "", body });
    };

    /** One hostile case: `check` gets what came back; then a normal request must work. */
    const hostile = async (
      name: string,
      raw: Uint8Array | string,
      check: (o: Outcome) => void | Promise<void>,
      options: { head?: boolean; timeoutMs?: number; hangUp?: boolean } = {},
    ) => {
      tried++;
      const got = await exchange(port, raw, options);
      seen.push(`${name} → ${statusOf(got)}`);
      try {
        await check(got);
      } catch (error) {
        throw new Error(`${name}: ${error instanceof Error ? error.message : error}`, { cause: error });
      }
      await normal(name);
    };
    const is = (...statuses: (number | string)[]) => (o: Outcome) => {
      assert.ok(statuses.includes(statusOf(o)), `got ${statusOf(o)}, want one of ${statuses.join(", ")}`);
    };
    const stored = (e: Omit<Expected, "query"> & { query?: string }, ...others: (number | string)[]) =>
    (
      o: Outcome,
    ) => {
      if (others.includes(statusOf(o))) return;
      assert.equal(statusOf(o), 200, typeof o === "string" ? o : o.text());
      expected.push({ query: "", ...e });
    };

    // --- Bodies over the limit: 413, clear body, nothing stored.
    const over = new Uint8Array(LIMIT + 1).fill(0x61);
    await hostile("over the limit with Content-Length", requestBytes({ body: over }), (o) => {
      is(413)(o);
      const r = o as RawResponse;
      assert.match(
        r.text(),
        /^Request body too large: this endpoint accepts at most 4 KiB\. .*Nothing was stored\.$/,
      );
      assert.match(r.headers.get("connection") ?? "", /close/); // hyper adds its own too: "close, close"
    });
    await hostile(
      "over the limit, declared but not sent (Expect: 100-continue)",
      `POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 999999999\r\nexpect: 100-continue\r\n\r\n`,
      is(413),
    );
    const chunk = (b: Uint8Array) =>
      concat([enc.encode(`${b.length.toString(16)}\r\n`), b, enc.encode("\r\n")]);
    const chunkedHead = "POST /webhook HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n";
    await hostile(
      "over the limit, chunked (no Content-Length)",
      concat([
        enc.encode(chunkedHead),
        ...Array.from({ length: 5 }, () => chunk(new Uint8Array(1000).fill(0x62))),
        enc.encode("0\r\n\r\n"),
      ]),
      is(413),
    );
    await hostile(
      "exactly at the limit is stored",
      requestBytes({ body: new Uint8Array(LIMIT).fill(0x63) }),
      stored({ method: "POST", path: "/webhook", body: new Uint8Array(LIMIT).fill(0x63) }),
    );

    // --- Chunked bodies, valid and not.
    const parts = [enc.encode("hello, "), enc.encode("chunked "), enc.encode("world")];
    await hostile(
      "a valid chunked body (with a chunk extension and a trailer)",
      concat([enc.encode(chunkedHead), ...parts.map(chunk), enc.encode("0;ext=1\r\nx-trailer: t\r\n\r\n")]),
      stored({ method: "POST", path: "/webhook", body: enc.encode("hello, chunked world") }),
    );
    await hostile("a malformed chunk size", chunkedHead + "zz\r\nhello\r\n0\r\n\r\n", is(400, "closed"));
    await hostile(
      "both Content-Length and chunked",
      "POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n5\r\nabcde\r\n0\r\n\r\n",
      stored({ method: "POST", path: "/webhook", body: enc.encode("abcde") }, 400, "closed"),
    );

    // --- Lying Content-Length and disconnects mid-body: no record.
    await hostile(
      "Content-Length larger than the body, then a hang-up",
      "POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nonly fifty".padEnd(120, "."),
      is("closed"),
      { hangUp: true },
    );
    await hostile(
      "Content-Length larger than the body, then silence until the client gives up",
      "POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nshort",
      is("timeout"),
      { timeoutMs: 500 },
    );
    await hostile(
      "Content-Length smaller than the body: the declared bytes are the body, the rest is not a request",
      "POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\n12345GARBAGE-AFTER-THE-BODY\r\n\r\n",
      stored({ method: "POST", path: "/webhook", body: enc.encode("12345") }),
    );
    for (const bad of ["-1", "abc", "10, 20", "1e3"]) {
      await hostile(
        `Content-Length ${JSON.stringify(bad)}`,
        `POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: ${bad}\r\n\r\n0123456789`,
        is(400, "closed"),
      );
    }
    await hostile(
      "two different Content-Length headers",
      "POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ncontent-length: 5\r\n\r\nabcde",
      is(400, "closed"),
    );
    await hostile("a chunked body cut off mid-chunk", chunkedHead + "10\r\nonly-part", is("closed"), {
      hangUp: true,
    });
    await hostile("headers cut off", "POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-le", is("closed"), {
      hangUp: true,
    });

    // --- Methods beyond GET and POST.
    for (
      const method of ["GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND", "TRACE", "X-CUSTOM"]
    ) {
      const head = method === "HEAD";
      await hostile(
        `${method} /webhook`,
        `${method} /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n`,
        (o) => {
          if (stack === "node" && method === "X-CUSTOM") {
            // node:http parses only the methods in http.METHODS: it refuses the request line.
            return is(400, "closed")(o);
          }
          is(405)(o);
          const r = o as RawResponse;
          assert.equal(r.headers.get("allow"), "POST");
          if (!head) assert.equal(r.text(), "Method not allowed.");
        },
        { head },
      );
    }
    for (const method of ["PROPFIND", "HEAD", "OPTIONS", "GET"]) {
      await hostile(
        `${method} /dav (a configured method)`,
        `${method} /dav HTTP/1.1\r\nhost: x\r\n\r\n`,
        stored({ method, path: "/dav", body: new Uint8Array(0) }),
        { head: method === "HEAD" },
      );
    }
    await hostile("PROPFIND to an unknown path", "PROPFIND /nope HTTP/1.1\r\nhost: x\r\n\r\n", (o) => {
      is(404)(o);
      assert.equal((o as RawResponse).text(), "No webhook endpoint matched this request.");
    });
    await hostile(
      "CONNECT",
      "CONNECT 127.0.0.1:1 HTTP/1.1\r\nhost: 127.0.0.1:1\r\n\r\n",
      is(400, 404, 405, "closed"),
    );
    await hostile(
      "a method that is not a token",
      "PO(ST /webhook HTTP/1.1\r\nhost: x\r\n\r\n",
      is(400, "closed"),
    );

    // --- Paths: percent-encoding, dot segments, query strings, length.
    const post = (path: string, body = "p") => requestBytes({ path, body });
    await hostile(
      "/a/../webhook (dot segments resolve)",
      post("/a/../webhook"),
      stored({ method: "POST", path: "/webhook", body: enc.encode("p") }),
    );
    await hostile(
      "/./webhook",
      post("/./webhook"),
      stored({ method: "POST", path: "/webhook", body: enc.encode("p") }),
    );
    await hostile(
      "/a/%2e%2e/webhook (encoded dot segment)",
      post("/a/%2e%2e/webhook"),
      stored({ method: "POST", path: "/webhook", body: enc.encode("p") }),
    );
    await hostile("/../../../etc/passwd", post("/../../../etc/passwd"), is(404));
    await hostile(
      "/%77ebhook (an encoded unreserved character matches its plain form; the stored path keeps its encoding)",
      post("/%77ebhook"),
      stored({ method: "POST", path: "/%77ebhook", body: enc.encode("p") }),
    );
    await hostile("/webhook%2F..%2Fsecret", post("/webhook%2F..%2Fsecret"), is(404));
    await hostile("/webhook/ (trailing slash)", post("/webhook/"), is(404));
    await hostile("//webhook", post("//webhook"), is(404));
    await hostile("/WEBHOOK (case matters)", post("/WEBHOOK"), is(404));
    await hostile(
      "a query string",
      post("/webhook?a=1&b=%00&c=%1b[31m&a=2"),
      stored({ method: "POST", path: "/webhook", query: "a=1&b=%00&c=%1b[31m&a=2", body: enc.encode("p") }),
    );
    await hostile(
      "an absolute-form target",
      post("http://evil.example/webhook?x=1"),
      stored({ method: "POST", path: "/webhook", query: "x=1", body: enc.encode("p") }, 400),
    );
    await hostile("a path of 8 KiB", post("/" + "a".repeat(8 * 1024)), is(404, 414, 431));
    const longQuery = "q=" + "z".repeat(60 * 1024);
    await hostile(
      "a 60 KiB query string",
      post(`/webhook?${longQuery}`),
      stored(
        { method: "POST", path: "/webhook", query: longQuery, body: enc.encode("p") },
        414,
        431,
        400,
        "closed",
      ),
    );
    await hostile("a path of 1 MiB", post("/" + "b".repeat(1024 * 1024)), is(414, 431, 400, "closed"));

    // --- Headers: very long values, thousands of them.
    const longValue = "v".repeat(60 * 1024);
    await hostile(
      "a 60 KiB header value",
      requestBytes({ headers: [["x-long", longValue]], body: "h" }),
      (o) => {
        stored({ method: "POST", path: "/webhook", body: enc.encode("h") }, 431, 400, "closed")(o);
      },
    );
    await hostile(
      "a 1 MiB header value",
      requestBytes({ headers: [["x-huge", "w".repeat(1024 * 1024)]], body: "h" }),
      is(431, 400, "closed"),
    );
    // Deno's HTTP layer (hyper) takes up to 128 header lines and answers 400 itself beyond that,
    // before hooktap sees the request: nothing is stored.
    const many: [string, string][] = Array.from({ length: 120 }, (_, i) => [`X-H-${i}`, String(i)]);
    many.push(["x-h-0", "again"]);
    await hostile(
      "121 headers, a repeated name among them",
      requestBytes({ headers: many, body: "many" }),
      (o) => {
        stored({ method: "POST", path: "/webhook", body: enc.encode("many"), headers: many })(o);
      },
    );
    const thousands: [string, string][] = Array.from({ length: 3000 }, (_, i) => [`x-h-${i}`, String(i)]);
    await hostile(
      "3,000 headers",
      requestBytes({ headers: thousands, body: "many" }),
      is(400, 431, "closed"),
    );
    await hostile(
      "a header without a colon",
      "POST /webhook HTTP/1.1\r\nhost: x\r\nno-colon-here\r\ncontent-length: 0\r\n\r\n",
      is(400, "closed"),
    );
    await hostile(
      "an ESC byte in a header value",
      "POST /webhook HTTP/1.1\r\nhost: x\r\nx-evil: \x1b]0;pwned\x07\r\ncontent-length: 0\r\n\r\n",
      is(400, "closed"),
    );

    // --- Bodies that are not UTF-8, or are but carry control characters: stored byte-exact.
    const odd: [string, Uint8Array, "utf8" | "base64"][] = [
      ["invalid bytes ff fe 00", bytes(0xff, 0xfe, 0x00), "base64"],
      ["an overlong encoding c0 80", bytes(0x61, 0xc0, 0x80), "base64"],
      ["an encoded surrogate ed a0 80", bytes(0xed, 0xa0, 0x80), "base64"],
      ["a truncated sequence e2 82", bytes(0x7b, 0xe2, 0x82), "base64"],
      ["Latin-1 caf\\xe9", bytes(0x63, 0x61, 0x66, 0xe9), "base64"],
      ["a UTF-8 BOM", bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d), "utf8"],
      ["NUL, ESC, BEL and CR in UTF-8", enc.encode("a\0b\x1b[2J\x07c\rd\u009b31m\u202e"), "utf8"],
    ];
    for (const [name, body, encoding] of odd) {
      await hostile(
        `a body with ${name}`,
        requestBytes({ body }),
        stored({ method: "POST", path: "/webhook", body, encoding }),
      );
    }

    // --- Terminal escapes aimed at dev's activity lines.
    await hostile(
      "an ESC byte in the request target",
      "POST /\x1b[2J\x1b]0;pwned\x07 HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n",
      is(400, 404, "closed"),
    );
    await hostile("percent-encoded escapes in the path", post("/%1b[2J%1b]0;pwned%07%e2%80%ae"), is(404));
    await hostile(
      "non-ASCII bytes in the path",
      concat([
        enc.encode("POST /\xe2\x80\xae"),
        bytes(0xc2, 0x9b),
        enc.encode("31m HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n"),
      ]),
      is(400, 404, "closed"),
    );

    // --- Not HTTP at all.
    await hostile(
      "a TLS ClientHello",
      bytes(0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, ...new Uint8Array(64)),
      is(400, "closed"),
    );
    await hostile("blank lines only", "\r\n\r\n\r\n", is(400, "closed", "timeout"), { timeoutMs: 500 });
    await hostile(
      "an HTTP/2 preface",
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
      is(400, 505, "closed", "timeout", 200),
      { timeoutMs: 500 },
    );
    await hostile(
      "HTTP/1.0 without Host",
      "POST /webhook HTTP/1.0\r\ncontent-length: 2\r\n\r\nhi",
      stored({ method: "POST", path: "/webhook", body: enc.encode("hi") }, 400),
    );
    await hostile(
      "HTTP/9.9",
      "POST /webhook HTTP/9.9\r\nhost: x\r\ncontent-length: 0\r\n\r\n",
      is(400, 505, "closed"),
    );

    // --- Connections that never finish their headers do not stall everyone else.
    const idle = await Promise.all(Array.from({ length: 200 }, () => HttpConn.open(port)));
    await Promise.all(idle.map((c) => c.send("POST /webhook HTTP/1.1\r\nhost: x\r\n")));
    tried++;
    await normal("200 connections that stopped in the middle of their headers");
    for (const c of idle) c.close();
    await Promise.all(Array.from({ length: 100 }, async () => (await HttpConn.open(port)).close()));
    tried++;
    await normal("100 connections opened and closed at once");

    // --- The log holds exactly what was acknowledged, in order, byte-exact.
    assert.equal(await dev.stop(), 0, dev.stderr());
    const events = await readEvents(tmp.path);
    assert.equal(events.length, expected.length, "one record per acknowledged request, no more");
    events.forEach((e, i) => {
      const want = expected[i]!;
      assert.equal(e.method, want.method, `record ${i}`);
      assert.equal(e.path, want.path, `record ${i}`);
      assert.equal(e.query, want.query, `record ${i}`);
      assert.deepEqual(
        decodeBody(e as { body: string; bodyEncoding: "utf8" | "base64" }),
        want.body,
        `record ${i} body`,
      );
      if (want.encoding) assert.equal(e.bodyEncoding, want.encoding, `record ${i} encoding`);
      if (want.headers) {
        const got = (e.headers as [string, string][]).filter(([k]) => /^x-h-/i.test(k));
        assert.deepEqual(
          got,
          want.headers,
          `record ${i} keeps every header in arrival order, case and repeats`,
        );
      }
    });

    // --- Nothing from a payload reached the terminal raw.
    // deno-lint-ignore no-control-regex
    const raw = /[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;
    assert.doesNotMatch(dev.stdout(), raw, "dev's stdout carries no control characters");
    assert.doesNotMatch(dev.stderr(), raw, "dev's stderr carries no control characters");
    assert.doesNotMatch(dev.stderr(), /failed unexpectedly|Uncaught|panicked/);
    // deno-lint-ignore no-console
    console.log(
      `hostile: ${tried} bad inputs tried, ${normals} normal requests served after them, ${events.length} stored\n  ` +
        seen.join("\n  "),
    );
  });
}

/** Peak resident memory of a process in KiB (VmHWM). */
async function peakKiB(pid: number): Promise<number> {
  const m = (await Deno.readTextFile(`/proc/${pid}/status`)).match(/^VmHWM:\s+(\d+)\s+kB/m);
  return Number(m![1]);
}

Deno.test({
  name: "endless chunked bodies are cut off at maxBodySize (25 MiB by default): 413, bounded memory",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
    ); // the default limit: 25 MiB
    await using dev = await startDev(tmp.path, ["--quiet"]);
    const conn0 = await HttpConn.open(dev.port);
    assert.equal((await conn0.request({ body: new Uint8Array(1024 * 1024) })).status, 200); // warm up
    conn0.close();
    const before = await peakKiB(dev.child.pid);
    const chunk = new Uint8Array(1024 * 1024).fill(0x41);
    const frame = concat([enc.encode(`${chunk.length.toString(16)}\r\n`), chunk, enc.encode("\r\n")]);
    // Four senders at once, each streaming up to 200 MiB without ever ending the body.
    const statuses = await Promise.all(Array.from({ length: 4 }, async () => {
      const conn = await HttpConn.open(dev.port);
      await conn.send("POST /webhook HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n");
      let answered = false;
      const reply = conn.readResponse().then((r) => r.status, () => "closed").finally(
        () => (answered = true),
      );
      let sentMiB = 0;
      try {
        while (sentMiB < 200 && !answered) {
          await Promise.race([conn.send(frame), reply]);
          sentMiB++;
        }
      } catch { /* the server stopped reading and closed: expected */ }
      const status = await reply;
      conn.close();
      return { status, sentMiB };
    }));
    for (const s of statuses) assert.equal(s.status, 413, JSON.stringify(statuses));
    const grownMiB = ((await peakKiB(dev.child.pid)) - before) / 1024;
    // deno-lint-ignore no-console
    console.log(
      `endless bodies: 4 × chunked streams, sent ${
        statuses.map((s) => s.sentMiB).join("/")
      } MiB before the 413; ` +
        `peak RSS grew ${grownMiB.toFixed(0)} MiB`,
    );
    // Each body is held at most up to the limit (25 MiB) before it is refused.
    assert.ok(grownMiB < 4 * 25 * 2 + 64, `peak RSS grew ${grownMiB.toFixed(0)} MiB`);
    const conn = await HttpConn.open(dev.port);
    assert.equal((await conn.request({ body: "after" })).status, 200);
    conn.close();
    assert.equal(await dev.stop(), 0);
    assert.deepEqual((await readEvents(tmp.path)).map((e) => e.bodySize), [1024 * 1024, 5]);
  },
});
