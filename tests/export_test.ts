import assert from "node:assert/strict";
import { join } from "node:path";
import { har as validateHar } from "har-validator";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { captureEvents, MULTI_CONFIG } from "./_capture.ts";
import { curlCommand } from "../src/export/curl.ts";

const enc = new TextEncoder();
const WRITE_HERE = ["--allow-net", "--allow-read=.", "--allow-write=."];
const BINARY = new Uint8Array([
  0xff,
  0x00,
  0x25,
  0x5c,
  0x27,
  0x0a,
  ...enc.encode("$(touch CANARY_B)"),
  0x80,
  0x1b,
]);
const HOSTILE = `$(touch CANARY) \`touch CANARY\` 'quote' "dq" ; touch CANARY`;

async function store(dir: string): Promise<string[]> {
  return await captureEvents(dir, [
    {
      path: "/webhook",
      query: "a=1&b=two%20words",
      headers: [["content-type", "application/json"], ["X-Evil", HOSTILE], ["X-Empty", ""], ["x-dup", "1"], [
        "X-Dup",
        "2",
      ]],
      body: `{"action":"opened","note":"it's $(touch CANARY) \`x\`","emoji":"✓"}`,
    },
    { path: "/webhook", headers: [["content-type", "application/octet-stream"]], body: BINARY },
    { path: "/webhook", headers: [["content-type", "text/plain"]], body: "@/etc/passwd starts with an at" },
  ]);
}

Deno.test("`hooktap export --format har` writes HAR 1.2 that har-validator accepts, bodies included", async () => {
  await using tmp = await withTmpDir();
  const ids = await store(tmp.path);
  const r = await runCli(["export", "--format", "har", "-o", "out.har"], {
    cwd: tmp.path,
    permissions: WRITE_HERE,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Exported 3 events as har to out\.har/);
  const doc = JSON.parse(await Deno.readTextFile(join(tmp.path, "out.har")));
  assert.deepEqual(await validateHar(doc), doc); // resolves to the document, rejects when invalid
  await assert.rejects(validateHar({ log: { ...doc.log, version: undefined, entries: [{ request: {} }] } }));
  assert.equal(doc.log.version, "1.2");
  assert.equal(doc.log.entries.length, 3);
  const [first, bin] = doc.log.entries;
  assert.match(first.comment, new RegExp(ids[0]!));
  assert.deepEqual(first.request.queryString, [{ name: "a", value: "1" }, { name: "b", value: "two words" }]);
  assert.ok(first.request.headers.some((h: { name: string; value: string }) => h.value === HOSTILE));
  assert.match(first.request.postData.text, /"action":"opened"/);
  assert.equal(bin.request.postData.encoding, "base64");
  assert.deepEqual(Uint8Array.from(atob(bin.request.postData.text), (c) => c.charCodeAt(0)), BINARY);
});

Deno.test("`hooktap export --format jsonl` writes the stored lines byte for byte, filtered and by id", async () => {
  await using tmp = await withTmpDir();
  const ids = await store(tmp.path);
  const stored = await Deno.readTextFile(join(tmp.path, ".hooktap/events.jsonl"));
  const all = await runCli(["export", "--format", "jsonl"], { cwd: tmp.path });
  assert.equal(all.stdout, stored);
  const lines = stored.split("\n");
  const some = await runCli(["export", "--format", "jsonl", "--grep", "opened"], { cwd: tmp.path });
  assert.equal(some.stdout, lines[0] + "\n");
  const byId = await runCli(["export", ids[2]!, ids[0]!.slice(0, 30)], { cwd: tmp.path });
  assert.equal(byId.stdout, lines[2] + "\n" + lines[0] + "\n");
  const newest = await runCli(["export", "-n", "2"], { cwd: tmp.path });
  assert.equal(newest.stdout, lines[1] + "\n" + lines[2] + "\n");
});

Deno.test("`hooktap export --format raw` writes one body's exact bytes and refuses several", async () => {
  await using tmp = await withTmpDir();
  const ids = await store(tmp.path);
  const r = await runCli(["export", ids[1]!, "--format", "raw"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdoutBytes, BINARY);
  // -n 1 picks one: the newest event the filters match.
  const newest = await runCli(["export", "-n", "1", "--format", "raw"], { cwd: tmp.path });
  assert.equal(newest.code, 0, newest.stderr);
  assert.equal(newest.stdout, "@/etc/passwd starts with an at");
  const newestBinary = await runCli(
    ["export", "-n", "1", "--format", "raw", "--has-header", "content-type=application/octet-stream"],
    { cwd: tmp.path },
  );
  assert.equal(newestBinary.code, 0, newestBinary.stderr);
  assert.deepEqual(newestBinary.stdoutBytes, BINARY);
  for (const args of [["--format", "raw"], ["-n", "2", "--format", "raw"]]) {
    const many = await runCli(["export", ...args], { cwd: tmp.path });
    assert.equal(many.code, 2);
    assert.match(many.stderr, /exactly one event id, or -n 1/);
  }
  const bad = await runCli(["export", "--format", "pdf"], { cwd: tmp.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--format must be one of har, curl, jsonl, raw/);
});

Deno.test("`hooktap export --format curl` run by sh sends the exact bytes and headers, running nothing hostile", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  const got: { method: string; url: string; headers: [string, string][]; body: Uint8Array }[] = [];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    got.push({
      method: req.method,
      url: req.url,
      headers: [...req.headers],
      body: new Uint8Array(await req.arrayBuffer()),
    });
    return new Response("ok");
  });
  const to = `http://127.0.0.1:${server.addr.port}/replayed`;
  const r = await runCli(["export", "--format", "curl", "--to", to, "-o", "send.sh"], {
    cwd: tmp.path,
    permissions: WRITE_HERE,
  });
  assert.equal(r.code, 0, r.stderr);
  const script = await Deno.readTextFile(join(tmp.path, "send.sh"));
  assert.match(script, /--data-binary @-/); // the binary body is piped in
  const events = (await Deno.readTextFile(join(tmp.path, ".hooktap/events.jsonl"))).trim().split("\n")
    .map((l) => JSON.parse(l));
  for (const shell of ["sh", "bash"]) {
    got.length = 0;
    const run = await new Deno.Command(shell, {
      args: ["send.sh"],
      cwd: tmp.path,
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    assert.equal(got.length, 3);
    assert.deepEqual(got[0]!.body, enc.encode(events[0].body));
    assert.deepEqual(got[1]!.body, BINARY);
    assert.deepEqual(got[2]!.body, enc.encode("@/etc/passwd starts with an at"));
    assert.equal(got[0]!.url, `${to}?a=1&b=two%20words`);
    const h = new Headers(got[0]!.headers);
    assert.equal(h.get("x-evil"), HOSTILE);
    assert.equal(h.get("x-empty"), "");
    assert.equal(h.get("x-dup"), "1, 2");
    assert.equal(h.get("content-type"), "application/json");
    // Every stored header, in order (curl's own User-Agent and Accept replaced by the stored ones).
    const sent = events[0].headers.filter(([n]: [string, string]) => !/^(host|content-length)$/i.test(n))
      .map(([n, v]: [string, string]) => [n.toLowerCase(), v]);
    const received = got[0]!.headers.filter(([n]) => !/^(host|content-length)$/i.test(n));
    assert.deepEqual(received.map(([n]) => n).sort(), [...new Set(sent.map(([n]: string[]) => n))].sort());
    assert.equal(h.get("user-agent"), new Headers(events[0].headers).get("user-agent"));
    assert.equal(new Headers(got[1]!.headers).get("content-type"), "application/octet-stream");
    for (const canary of ["CANARY", "CANARY_B"]) {
      assert.equal(await Deno.stat(join(tmp.path, canary)).then(() => true, () => false), false);
    }
  }
});

Deno.test("export -o FILE when Deno may write only FILE (the npm package's grant): written in place, 0600", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  await Deno.writeTextFile(join(tmp.path, "out.har"), "old contents that are longer than nothing at all\n");
  const r = await runCli(["export", "--format", "har", "-o", "out.har"], {
    cwd: tmp.path,
    permissions: ["--allow-read=.", "--allow-write=.hooktap,out.har"],
  });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(await Deno.readTextFile(join(tmp.path, "out.har")));
  assert.equal(doc.log.entries.length, 3);
  assert.equal((await Deno.stat(join(tmp.path, "out.har"))).mode! & 0o777, 0o600);
  assert.deepEqual([...Deno.readDirSync(tmp.path)].filter((e) => e.name.endsWith(".tmp")), []);
  // Not allowed at all (deno install's shim without a terminal): the message names FILE, not a temp file.
  const denied = await runCli(["export", "--format", "har", "-o", "other.har"], {
    cwd: tmp.path,
    permissions: ["--allow-read=.", "--allow-write=.hooktap"],
  });
  assert.notEqual(denied.code, 0);
  assert.match(
    denied.stderr,
    /Cannot write other\.har: hooktap's permissions let it write only in \.hooktap\//,
  );
  assert.match(denied.stderr, /leave out -o and add > other\.har/);
  // Deno's "run again with the --allow-write flag" is no fix for an installed `hooktap`: not printed.
  assert.doesNotMatch(denied.stderr, /run again with/);
});

Deno.test("`hooktap export --help` lists every format the registry has, and --format takes each one", async () => {
  const { FORMATS } = await import("../src/export/registry.ts");
  await using tmp = await withTmpDir();
  const help = await runCli(["export", "--help"], { cwd: tmp.path });
  assert.equal(help.code, 0, help.stderr);
  const text = help.stdout.replace(/\s+/g, " ");
  for (const format of FORMATS) {
    assert.match(text, new RegExp(`"${format.name}"`), `${format.name} in the choices`);
    assert.match(text, new RegExp(`\\b${format.name} \\(`), `${format.name} described`);
  }
  const typo = await runCli(["export", "--format", "fixtre"], { cwd: tmp.path });
  assert.equal(typo.code, 2);
  assert.match(
    typo.stderr,
    /--format must be one of har, curl, jsonl, raw, fixture, got "fixtre" \(did you mean fixture\?\)/,
  );
  const fixture = await runCli(["export", "--format", "fixture"], { cwd: tmp.path });
  assert.equal(fixture.code, 0, fixture.stderr);
});

Deno.test("export --to is refused (exit 2, naming curl) for the formats that write events as they arrived", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  for (const format of ["jsonl", "har", "fixture"]) {
    const r = await runCli(["export", "--to", "http://x/y", "-n", "1", "--format", format], {
      cwd: tmp.path,
    });
    assert.equal(r.code, 2, `${format}: ${r.stderr}`);
    assert.equal(r.stdout, "", format);
    assert.match(
      r.stderr,
      new RegExp(`--to .* only --format curl writes; --format ${format} writes`),
      format,
    );
  }
  const curl = await runCli(["export", "--to", "http://x/y", "-n", "1", "--format", "curl"], {
    cwd: tmp.path,
  });
  assert.equal(curl.code, 0, curl.stderr);
  assert.match(curl.stdout, /'http:\/\/x\/y\?a=1&b=two%20words'|http:\/\/x\/y/);
});

Deno.test("export --endpoint naming no endpoint is a usage error (exit 2), naming the known ones", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  const r = await runCli(["export", "--endpoint", "nope", "--format", "jsonl"], { cwd: tmp.path });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /There is no endpoint named "nope"\. Known endpoints: /);
});

Deno.test("`hooktap export --format curl` sends header bytes beyond ASCII as stored, and a body over 128 KiB", async () => {
  await using tmp = await withTmpDir();
  // Header bytes as they came: Latin-1 `é` (not UTF-8), UTF-8 `é` and a UTF-8 right-to-left override.
  const latin1 = "caf\u00e9 end";
  const utf8 = String.fromCharCode(...enc.encode("José"));
  const bidi = String.fromCharCode(...enc.encode("invoice\u202Egnp.exe"));
  // Text that would be inline, but longer than one argument may be on Linux (128 KiB).
  const big = `{"pad":"${"x".repeat(200 * 1024)}"}`;
  await captureEvents(tmp.path, [
    { path: "/webhook", headers: [["x-latin1", latin1], ["x-utf8", utf8], ["x-bidi", bidi]], body: "{}" },
    { path: "/webhook", headers: [["content-type", "application/json"]], body: big },
  ]);
  const got: { headers: Headers; body: Uint8Array }[] = [];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    got.push({ headers: req.headers, body: new Uint8Array(await req.arrayBuffer()) });
    return new Response("ok");
  });
  const to = `http://127.0.0.1:${server.addr.port}/replayed`;
  const r = await runCli(["export", "--format", "curl", "--to", to, "-o", "send.sh"], {
    cwd: tmp.path,
    permissions: WRITE_HERE,
  });
  assert.equal(r.code, 0, r.stderr);
  const script = await Deno.readTextFile(join(tmp.path, "send.sh"));
  assert.match(script, /--header 'x-utf8: José'/); // readable when the bytes are UTF-8
  // HAR: the value as the sender meant it (as `inspect` shows it), not its bytes as Latin-1 characters.
  const har = await runCli(["export", "--format", "har", "-n", "2"], {
    cwd: tmp.path,
    permissions: WRITE_HERE,
  });
  const headers = JSON.parse(har.stdout).log.entries[0].request.headers;
  assert.deepEqual(headers.find((h: { name: string }) => h.name === "x-utf8").value, "José");
  assert.deepEqual(headers.find((h: { name: string }) => h.name === "x-latin1").value, latin1);
  assert.doesNotMatch(script, /\u202E/); // never a bidi override in the script's text
  for (const shell of ["sh", "bash"]) {
    got.length = 0;
    const run = await new Deno.Command(shell, {
      args: ["send.sh"],
      cwd: tmp.path,
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    assert.equal(got.length, 2);
    // Deno hands header bytes over one per character, as hooktap stored them.
    assert.equal(got[0]!.headers.get("x-latin1"), latin1);
    assert.equal(got[0]!.headers.get("x-utf8"), utf8);
    assert.equal(got[0]!.headers.get("x-bidi"), bidi);
    assert.deepEqual(got[1]!.body, enc.encode(big));
  }
});

Deno.test("export names the ids its filters leave out; raw refuses one before touching -o FILE", async () => {
  await using tmp = await withTmpDir();
  const [json, binary] = await store(tmp.path);
  await captureEvents(tmp.path, [{ path: "/github", body: "{}" }]);
  const githubId = JSON.parse(
    (await Deno.readTextFile(join(tmp.path, ".hooktap/events.jsonl"))).trim().split("\n").at(-1)!,
  ).id;
  const out = join(tmp.path, "body.bin");
  await Deno.writeTextFile(out, "precious");
  const raw = await runCli(["export", binary!, "--format", "raw", "--endpoint", "github", "-o", "body.bin"], {
    cwd: tmp.path,
    permissions: WRITE_HERE,
  });
  assert.equal(raw.code, 2, raw.stderr);
  assert.match(raw.stderr, new RegExp(`${binary} does not match the filters given: nothing written`));
  assert.equal(await Deno.readTextFile(out), "precious");
  const some = await runCli(["export", json!, githubId, "--format", "jsonl", "--endpoint", "github"], {
    cwd: tmp.path,
    permissions: WRITE_HERE,
  });
  assert.equal(some.code, 0, some.stderr);
  assert.equal(some.stdout.trim().split("\n").length, 1);
  assert.match(some.stderr, new RegExp(`Left out 1 event the filters exclude: ${json}\\.`));
  const none = await runCli(["export", "--format", "har", "--grep", "no-such-text", "-o", "none.har"], {
    cwd: tmp.path,
    permissions: WRITE_HERE,
  });
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stderr, /No stored events match these filters: wrote an empty har export to none\.har\./);
});

Deno.test("`hooktap export --format curl` sends a GET's body too (curl can), and says a HEAD's is not sent", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", MULTI_CONFIG);
  {
    // A GET with a body, as some senders send it (fetch cannot, so over a socket).
    await using dev = await startDev(tmp.path);
    const { hostname, port } = new URL(dev.url);
    const conn = await Deno.connect({ hostname, port: Number(port) });
    const body = '{"search":"GET with a body"}';
    await conn.write(enc.encode(
      `GET /ping?q=1 HTTP/1.1\r\nHost: ${hostname}:${port}\r\ncontent-type: application/json\r\n` +
        `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    ));
    const answer = new Uint8Array(1024);
    await conn.read(answer);
    conn.close();
  }
  const stored = JSON.parse((await Deno.readTextFile(join(tmp.path, ".hooktap/events.jsonl"))).trim());
  assert.equal(stored.method, "GET");
  assert.ok(stored.bodySize > 0, "dev stored the GET's body");
  // A server of bytes: Deno.serve hands a GET's request no body.
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received = (async () => {
    const conn = await listener.accept();
    let text = "";
    const buf = new Uint8Array(4096);
    // Until the head, then as many bytes as the request's own content-length says (none: no body).
    const want = () => {
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return Infinity;
      return end + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
    };
    while (text.length < want()) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    await conn.write(enc.encode("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"));
    conn.close();
    return text;
  })();
  const to = `http://127.0.0.1:${listener.addr.port}/replayed`;
  const r = await runCli(["export", "--format", "curl", "--to", to, "-o", "send.sh"], {
    cwd: tmp.path,
    permissions: WRITE_HERE,
  });
  assert.equal(r.code, 0, r.stderr);
  const run = await new Deno.Command("sh", {
    args: ["send.sh"],
    cwd: tmp.path,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
  const request = await received;
  assert.match(request, /^GET \/replayed\?q=1 HTTP\/1\.1\r\n/);
  assert.equal(request.slice(request.indexOf("\r\n\r\n") + 4), stored.body);
  // HEAD: curl --head sends no body; the script says so.
  const head = curlCommand({ ...stored, method: "HEAD" });
  assert.match(
    head,
    new RegExp(`# Its stored ${stored.bodySize}-byte body is not sent: a HEAD request carries none`),
  );
  assert.doesNotMatch(head, /--data-binary/);
});

Deno.test("export -o refuses a folder and an empty path, and -n 0 (they crashed with exit 70, or exported nothing)", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  await Deno.mkdir(join(tmp.path, "out"));
  const folder = await runCli(["export", "-o", "out"], { cwd: tmp.path });
  assert.equal(folder.code, 2, folder.stderr);
  assert.match(
    folder.stderr,
    /--output \S+out is a folder: give the path of a file to write, like \S+export\.jsonl/,
  );
  const empty = await runCli(["export", "-o", ""], { cwd: tmp.path });
  assert.equal(empty.code, 2, empty.stderr);
  assert.match(empty.stderr, /--output must be a file, got "": give a file path/);
  const none = await runCli(["export", "-n", "0"], { cwd: tmp.path });
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /--limit must be a whole number of at least 1, got "0"/);
  // Nothing written anywhere: no temp file beside the folder, the folder empty.
  assert.deepEqual([...Deno.readDirSync(join(tmp.path, "out"))], []);
  assert.deepEqual(
    [...Deno.readDirSync(tmp.path)].map((e) => e.name).filter((n) => n.endsWith(".tmp")),
    [],
  );
});

Deno.test("`hooktap export --har` (a format given as an option) is refused with the option that takes it", async () => {
  await using tmp = await withTmpDir();
  const r = await runCli(["export", "--har"], { cwd: tmp.path });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown option '--har' \(did you mean --format har\?\)/);
  assert.doesNotMatch(r.stderr, /\bat /, "no stack trace");
});
