/**
 * Issue 20: clients that declare, withhold or flood against a real `hooktap
 * dev` (both stacks), bounded in count and time. Memory is read from
 * /proc/PID/status (VmRSS) of the dev subprocess; no timing is asserted.
 * @module
 */
import assert from "node:assert/strict";
import { LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { rssKiB } from "./_load.ts";
import { HttpConn } from "./_http.ts";
import { HAS_SCRIPT, runInPty } from "../_pty.ts";

const STACKS = ["deno", "node"] as const;

/** A config (with a GET endpoint on node:http, as a user who needs one would have it). */
function configFor(stack: "deno" | "node", extra = ""): string {
  const get = stack === "node" ? `, { name: "read", path: "/read", method: "GET" }` : "";
  return `export default {
  port: 8787,
  ui: false,
  ${extra}
  endpoints: [{ name: "default", path: "/webhook", method: "POST" }${get}],
};
`;
}

/** dev on `stack`, chosen with `HOOKTAP_STACK`. */
function onStack(stack: "deno" | "node") {
  return { permissions: [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_STACK"], env: { HOOKTAP_STACK: stack } };
}

async function devOn(dir: string, stack: "deno" | "node", extra = "") {
  await writeFile(dir, "hooktap.config.ts", configFor(stack, extra));
  const dev = await startDev(dir, [], onStack(stack));
  assert.match(dev.stderr(), stack === "node" ? /Server: node:http/ : /Server: Deno\.serve/);
  return dev;
}

/** A normal request on a fresh connection; its status. */
async function post(port: number, body = '{"ok":1}'): Promise<number> {
  const conn = await HttpConn.open(port);
  try {
    return (await conn.request({ path: "/webhook", body, headers: [["content-type", "application/json"]] }))
      .status;
  } finally {
    conn.close();
  }
}

for (const stack of STACKS) {
  Deno.test(`200 connections declaring 25 MiB and sending one byte barely raise dev's memory (${stack} stack)`, async () => {
    await using tmp = await withTmpDir();
    await using dev = await devOn(tmp.path, stack);
    assert.equal(await post(dev.port), 200);
    const before = await rssKiB(dev.child.pid);
    const conns: Deno.TcpConn[] = [];
    try {
      const head = `POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
        `content-length: 26214000\r\n\r\n{`;
      for (let i = 0; i < 200; i++) {
        const c = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
        await c.write(new TextEncoder().encode(head));
        conns.push(c);
      }
      // Give dev time to do whatever the declared lengths make it do; stop early past the bound.
      let peak = before;
      for (let i = 0; i < 30; i++) {
        await new Promise((r) => setTimeout(r, 100));
        peak = Math.max(peak, await rssKiB(dev.child.pid));
        if (peak - before > 150 * 1024) break;
      }
      const rise = (peak - before) / 1024;
      assert.ok(rise < 150, `dev's RSS rose by ${rise.toFixed(0)} MB (bound 150 MB; done-when 100 MB)`);
    } finally {
      for (const c of conns) c.close();
    }
    assert.equal(await post(dev.port), 200, "dev serves after the hoarders leave");
  });
}

// ---- Links planted under .hooktap/: one test per file the store writes ----

const ORIGINAL = "# a shell start-up file: hooktap must never write here\n";

/** Plants `.hooktap/<name>` as a link to a file outside; returns that file's path. */
async function plant(dir: string, name: string): Promise<string> {
  await Deno.mkdir(`${dir}/.hooktap`, { recursive: true, mode: 0o700 });
  const target = `${dir}/outside_${name.replaceAll("/", "_")}`;
  await Deno.writeTextFile(target, ORIGINAL);
  await Deno.chmod(target, 0o644);
  await Deno.symlink(target, `${dir}/.hooktap/${name}`);
  return target;
}

async function assertUntouched(target: string): Promise<void> {
  assert.equal(await Deno.readTextFile(target), ORIGINAL, `${target} was written through a link`);
  assert.equal((await Deno.stat(target)).mode! & 0o777, 0o644, `${target}'s mode was changed`);
}

/** `dev` refuses to start, naming the link and the fix; the target is untouched. */
for (const name of ["events.jsonl", "dev.lock", "unmatched.jsonl"]) {
  Deno.test(`a link planted at .hooktap/${name} stops dev with the fix and is never written through`, async () => {
    await using tmp = await withTmpDir();
    const target = await plant(tmp.path, name);
    await writeFile(tmp.path, "hooktap.config.ts", configFor("deno"));
    await assert.rejects(
      startDev(tmp.path, [], { permissions: LEAST_PRIVILEGE }),
      (error: Error) => {
        assert.match(error.message, new RegExp(`${name.replace(".", "\\.")} is a symbolic link`));
        assert.match(error.message, /rm .*then start again/);
        return true;
      },
    );
    await assertUntouched(target);
  });
}

/** Sends `count` requests to unknown paths of ~1 KiB on one keep-alive connection. */
async function flood404(port: number, count: number): Promise<void> {
  const conn = await HttpConn.open(port);
  try {
    for (let i = 0; i < count; i++) {
      const res = await conn.request({
        method: "GET",
        path: `/${i}/$(touch\${IFS}PWNED)/` + "x".repeat(1100),
      });
      assert.equal(res.status, 404);
    }
  } finally {
    conn.close();
  }
}

Deno.test("a link planted at .hooktap/unmatched.jsonl.tmp is never written through when the log is rewritten", async () => {
  await using tmp = await withTmpDir();
  const target = await plant(tmp.path, "unmatched.jsonl.tmp");
  await using dev = await devOn(tmp.path, "deno");
  await flood404(dev.port, 700); // past twice the byte bound (2 × 256 KiB): at least one rewrite
  assert.equal(await dev.stop(), 0);
  await assertUntouched(target);
  const log = await Deno.readTextFile(`${tmp.path}/.hooktap/unmatched.jsonl`);
  assert.ok(log.length <= 512 * 1024, `unmatched.jsonl is ${log.length} bytes`);
  assert.match(log, /…\[cut\]/, "long paths are kept cut, marked");
});

for (const name of ["forward_state.json", "forward_state.json.tmp", "deliveries.jsonl"]) {
  Deno.test(`a link planted at .hooktap/${name} is never written through while dev forwards`, async () => {
    await using tmp = await withTmpDir();
    const target = await plant(tmp.path, name);
    await using app = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response("ok"),
    );
    const extra =
      `endpoints: [{ name: "default", path: "/webhook", method: "POST", forward: "http://127.0.0.1:${app.addr.port}/" }],`;
    await Deno.writeTextFile(
      `${tmp.path}/hooktap.config.ts`,
      `export default { port: 8787, ui: false, ${extra} };\n`,
    );
    let dev;
    try {
      dev = await startDev(tmp.path, [], { permissions: LEAST_PRIVILEGE });
    } catch (error) {
      // The deliveries log is opened at start: a link there stops dev with the fix.
      assert.equal(name, "deliveries.jsonl", String(error));
      assert.match(String(error), /deliveries\.jsonl is a symbolic link.*rm /s);
      await assertUntouched(target);
      return;
    }
    await using _ = dev;
    assert.equal(await post(dev.port), 200);
    for (let i = 0; i < 100; i++) {
      const state = await Deno.lstat(`${tmp.path}/.hooktap/forward_state.json`).catch(() => undefined);
      if (state?.isFile) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await dev.stop(), 0);
    await assertUntouched(target);
    assert.ok((await Deno.lstat(`${tmp.path}/.hooktap/forward_state.json`)).isFile);
  });
}

// A ready file inside .hooktap is refused outright (tests/fault/misuse_test.ts).
for (const name of ["index.json", "control.sock"]) {
  Deno.test(`a link planted at .hooktap/${name} is never written through`, async () => {
    await using tmp = await withTmpDir();
    const target = await plant(tmp.path, name);
    await writeFile(tmp.path, "hooktap.config.ts", configFor("deno"));
    await using dev = await startDev(tmp.path, ["--ready-file", "ready.json"], {
      permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap,ready.json"],
    });
    assert.equal(await post(dev.port), 200);
    assert.equal(await dev.stop(), 0);
    await assertUntouched(target);
  });
}

Deno.test("export -o into .hooktap is refused and the store is intact; -o elsewhere is owner-only", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", configFor("deno"));
  {
    await using dev = await devOn(tmp.path, "deno");
    assert.equal(await post(dev.port), 200);
    assert.equal(await dev.stop(), 0);
  }
  const events = `${tmp.path}/.hooktap/events.jsonl`;
  const before = await Deno.readTextFile(events);
  await Deno.symlink(".hooktap", `${tmp.path}/store_link`);
  for (
    const out of [".hooktap/events.jsonl", "./.hooktap/../.hooktap/events.jsonl", "store_link/events.jsonl"]
  ) {
    const r = await runCli(["export", "-o", out], { cwd: tmp.path, permissions: ["-A"] });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /inside hooktap's data directory/);
    assert.equal(await Deno.readTextFile(events), before);
  }
  await Deno.writeTextFile(`${tmp.path}/out.jsonl`, "old\n", { mode: 0o644 });
  await Deno.chmod(`${tmp.path}/out.jsonl`, 0o644);
  const r = await runCli(["export", "-o", "out.jsonl"], { cwd: tmp.path, permissions: ["-A"] });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await Deno.stat(`${tmp.path}/out.jsonl`)).mode! & 0o777, 0o600);
  assert.equal((await Deno.readTextFile(`${tmp.path}/out.jsonl`)).split("\n").filter(Boolean).length, 1);
});

// ---- Stalls and descriptor exhaustion ----

/** Reads until the server answers or closes (bounded); the status line's code, or "closed". */
async function answerOf(conn: Deno.TcpConn, ms = 10_000): Promise<number | "closed" | "timeout"> {
  const buf = new Uint8Array(4096);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)));
  const read = conn.read(buf).then((n) => {
    if (n === null) return "closed" as const;
    const m = new TextDecoder().decode(buf.subarray(0, n)).match(/^HTTP\/1\.1 (\d{3})/);
    return m ? Number(m[1]) : "closed" as const;
  }).catch(() => "closed" as const);
  const got = await Promise.race([read, timeout]);
  clearTimeout(timer);
  return got;
}

const STALL = "server: { headersTimeoutMs: 500, bodyTimeoutMs: 500, keepAliveTimeoutMs: 500 },";

for (const stack of STACKS) {
  Deno.test(`a body that stops arriving is answered 408 and nothing is stored (${stack} stack)`, async () => {
    await using tmp = await withTmpDir();
    await using dev = await devOn(tmp.path, stack, STALL);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
    try {
      await conn.write(
        new TextEncoder().encode('POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"a":'),
      );
      assert.equal(await answerOf(conn), 408);
    } finally {
      conn.close();
    }
    assert.equal(await post(dev.port), 200);
    assert.equal(await dev.stop(), 0);
    const log = await Deno.readTextFile(`${tmp.path}/.hooktap/events.jsonl`);
    assert.equal(log.split("\n").filter(Boolean).length, 1, "only the whole request is stored");
  });
}

Deno.test("a connection that never finishes its headers is closed (node stack)", async () => {
  await using tmp = await withTmpDir();
  await using dev = await devOn(tmp.path, "node", STALL);
  for (const partial of ["", "POST /webhook HTTP/1.1\r\nhost: x\r\n"]) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
    try {
      if (partial !== "") await conn.write(new TextEncoder().encode(partial));
      assert.notEqual(await answerOf(conn), "timeout", `still open after 10 s: ${JSON.stringify(partial)}`);
    } finally {
      conn.close();
    }
  }
});

for (const stack of STACKS) {
  Deno.test(`idle connections past the descriptor limit leave dev running and serving afterwards (${stack} stack)`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", configFor(stack));
    await using dev = await startDev(tmp.path, [], {
      ...onStack(stack),
      wrap: ["prlimit", "--nofile=256"],
    });
    const conns: Deno.TcpConn[] = [];
    for (let i = 0; i < 400; i++) {
      try {
        conns.push(await Deno.connect({ hostname: "127.0.0.1", port: dev.port }));
      } catch {
        break; // refused while dev listens again: the flood has done its work
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
    for (const c of conns) c.close();
    let status: number | string = "never tried";
    for (let i = 0; i < 60 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      try {
        const conn = await HttpConn.open(dev.port);
        try {
          const got = await Promise.race([
            conn.request({ path: "/webhook", body: "{}" }).then((r) => r.status),
            new Promise<string>((r) => setTimeout(() => r("no answer"), 1000)),
          ]);
          status = got;
        } finally {
          conn.close();
        }
      } catch (error) {
        status = String(error);
      }
    }
    assert.equal(status, 200, `dev does not serve after the flood:\n${dev.stderr().slice(-500)}`);
  });
}

// ---- Terminal safety ----

Deno.test({
  name: "logs --json on a terminal escapes C1 controls and bidi characters; a pipe gets the exact JSON",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", configFor("deno"));
    const hostile = "x\u009b31mRED\u009d0;title\u009c\u202egnp.exe\u2028";
    {
      await using dev = await devOn(tmp.path, "deno");
      assert.equal(await post(dev.port, JSON.stringify({ s: hostile })), 200);
      assert.equal(await dev.stop(), 0);
    }
    const tty = await runInPty(["logs", "--json"], { cwd: tmp.path });
    assert.equal(tty.code, 0, tty.screen);
    for (const ch of ["\u009b", "\u009d", "\u009c", "\u202e", "\u2028"]) assert.ok(!tty.screen.includes(ch));
    assert.match(tty.screen, /\\u009b31mRED\\u009d0;title\\u009c\\u202egnp\.exe\\u2028/);
    const piped = await runCli(["logs", "--json"], { cwd: tmp.path });
    assert.equal(piped.code, 0, piped.stderr);
    const line = JSON.parse(piped.stdout.trim().split("\n").at(-1)!);
    assert.equal(JSON.parse(line.body).s, hostile);
    assert.ok(piped.stdout.includes("\u009b"), "the pipe gets exact JSON");
  },
});

// ---- The probe and malformed requests ----

Deno.test("the probe answers a per-run nonce kept in dev.lock, never the pid", async () => {
  await using tmp = await withTmpDir();
  await using dev = await devOn(tmp.path, "deno");
  const response = await fetch(`${dev.url}/.hooktap/probe`, { headers: { "x-hooktap-probe": "1" } });
  const answer = await response.json();
  assert.equal(answer.hooktap, true);
  assert.equal(answer.pid, undefined);
  assert.doesNotMatch(JSON.stringify(answer), new RegExp(`\\b${dev.child.pid}\\b`));
  const lock = JSON.parse(await Deno.readTextFile(`${tmp.path}/.hooktap/dev.lock`));
  assert.equal(typeof answer.run, "string");
  assert.equal(answer.run, lock.run);
});

// Deno.serve's HTTP layer closes such a connection before any handler runs (Deno 2.9): node:http only.
{
  const stack = "node";
  Deno.test(`a malformed chunked body is answered 400 and logged (${stack} stack)`, async () => {
    await using tmp = await withTmpDir();
    await using dev = await devOn(tmp.path, stack);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
    try {
      await conn.write(
        new TextEncoder().encode(
          "POST /webhook HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz-not-hex\r\nabc\r\n0\r\n\r\n",
        ),
      );
      assert.equal(await answerOf(conn), 400);
    } finally {
      conn.close();
    }
    for (let i = 0; i < 40 && !/400/.test(dev.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(dev.stderr(), /Answered 400 Bad Request/);
  });
}
