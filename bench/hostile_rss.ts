// deno-lint-ignore-file no-console -- a benchmark script: its report goes to stdout
/**
 * RSS growth of `hooktap dev` (both stacks) and of `hooktap hub serve` under
 * each hostile input of issues 20 and 38, beside the bound it is held to
 * (docs/security.md). Not timed; loopback only; every sender stops once the
 * growth passes twice its bound.
 *
 * - declared: 200 connections declare 25 MiB and send one byte, held 3 s;
 * - tiny chunks: one body in one-byte chunks (400,000; 600,000 on node:http);
 * - trailer: an endless trailer field after the last chunk, until the
 *   server closes the connection (or 1 GiB is sent, whatever `--small`);
 * - stalled: 1,500 connections that declare 100,000 bytes and send one.
 *
 *   deno run -A bench/hostile_rss.ts [--small] [path/to/main.ts]
 *
 * `--small` divides the counts by ten (a smoke run). `deno task bench` runs
 * it with `--only hostile`, or as its last part.
 * @module
 */
import { rssKiB, spawnUntil } from "./proc.ts";

const MB = 1024 * 1024;
/** Resident memory of `pid`, in bytes. */
const rss = (pid: number): number => rssKiB(pid) * 1024;
const enc = new TextEncoder();

/** One hostile input's measure. */
export interface HostileRow {
  target: string;
  input: string;
  /** Peak RSS growth, in bytes. */
  growth: number;
  /** The bound it is held to, in bytes, and what it is. */
  bound: number;
  boundText: string;
  /** What the server answered or did. */
  outcome: string;
}

interface Conn {
  conn: Deno.TcpConn;
  answer(): string;
  closed(): boolean;
  done: Promise<void>;
}

async function open(port: number, head: string): Promise<Conn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(enc.encode(head));
  let text = "";
  let closed = false;
  const done = (async () => {
    const buf = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    closed = true;
  })();
  return { conn, answer: () => text, closed: () => closed, done };
}

const statusOf = (c: Conn) => c.answer().slice(9, 12) || (c.closed() ? "closed" : "none");

async function declared(port: number, pid: number, path: string, n: number): Promise<[number, string]> {
  const before = await rss(pid);
  let peak = before;
  const conns: Conn[] = [];
  for (let i = 0; i < n; i++) {
    conns.push(await open(port, `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: 26214000\r\n\r\n{`));
  }
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 100));
    peak = Math.max(peak, await rss(pid));
  }
  for (const c of conns) c.conn.close();
  await Promise.all(conns.map((c) => c.done));
  return [peak - before, `${n} held`];
}

async function tiny(
  port: number,
  pid: number,
  path: string,
  n: number,
  stop: number,
): Promise<[number, string]> {
  const before = await rss(pid);
  let peak = before;
  const c = await open(port, `POST ${path} HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n`);
  const batch = enc.encode("1\r\nx\r\n".repeat(100));
  const t0 = performance.now();
  let stopped = false;
  for (let i = 0; i < n / 100 && !stopped && !c.closed(); i++) {
    await c.conn.write(batch);
    if (i % 50 === 0) {
      peak = Math.max(peak, await rss(pid));
      stopped = peak - before > stop;
    }
  }
  if (!stopped) await c.conn.write(enc.encode("0\r\n\r\n"));
  while (!stopped && c.answer() === "" && !c.closed() && performance.now() - t0 < 60_000) {
    await new Promise((r) => setTimeout(r, 100));
    peak = Math.max(peak, await rss(pid));
    stopped = peak - before > stop;
  }
  const ms = performance.now() - t0;
  c.conn.close();
  await c.done;
  return [
    peak - before,
    stopped ? "stopped: past twice the bound" : `${statusOf(c)} after ${(ms / 1000).toFixed(1)} s`,
  ];
}

async function trailer(port: number, pid: number, path: string, max: number): Promise<[number, string]> {
  const before = await rss(pid);
  let peak = before;
  const c = await open(
    port,
    `POST ${path} HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nx-a: `,
  );
  const block = enc.encode("a".repeat(MB));
  let sent = 0;
  try {
    while (sent < max && !c.closed()) {
      sent += await c.conn.write(block);
      if (sent % (16 * MB) < MB) peak = Math.max(peak, await rss(pid));
    }
  } catch { /* closed by the server */ }
  peak = Math.max(peak, await rss(pid));
  await Promise.race([c.done, new Promise((r) => setTimeout(r, 3000))]);
  const closed = c.closed();
  c.conn.close();
  await c.done;
  return [
    peak - before,
    `${statusOf(c)}, ${closed ? "closed" : "still open"} after ${(sent / MB).toFixed(0)} MiB`,
  ];
}

async function stalled(port: number, pid: number, path: string, n: number): Promise<[number, string]> {
  const before = await rss(pid);
  const conns: Conn[] = [];
  for (let i = 0; i < n; i++) {
    conns.push(await open(port, `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: 100000\r\n\r\n{`));
  }
  await new Promise((r) => setTimeout(r, 2000));
  const growth = (await rss(pid)) - before;
  const refused = conns.filter((c) => c.closed() && statusOf(c) === "503").length;
  for (const c of conns) c.conn.close();
  await Promise.all(conns.map((c) => c.done));
  return [growth, `${refused} answered 503 and closed`];
}

/** The inputs, their bounds (docs/security.md), run against one server. */
async function measureOne(
  target: string,
  port: number,
  pid: number,
  path: string,
  small: boolean,
  node: boolean,
): Promise<HostileRow[]> {
  const k = small ? 10 : 1;
  const rows: HostileRow[] = [];
  const row = (input: string, bound: number, boundText: string, [growth, outcome]: [number, string]) =>
    rows.push({ target, input, growth, bound, boundText, outcome });
  if (target !== "hub") {
    row(
      `${200 / k} × 25 MiB declared, 1 byte sent`,
      64 * MB,
      "bytes as they arrive",
      await declared(port, pid, path, 200 / k),
    );
  }
  const chunks = (node ? 600_000 : 400_000) / k;
  row(
    `${chunks} one-byte chunks`,
    200 * MB,
    "its bytes, not its chunks",
    await tiny(port, pid, path, chunks, 400 * MB),
  );
  if (target !== "hub") {
    row(
      `${1500 / k} stalled bodies`,
      150 * MB,
      "1,000 bodies read at once (maxConnections), 503 past it",
      await stalled(port, pid, path, 1500 / k),
    );
  }
  row(
    "endless trailer after the last chunk",
    node ? 16 * MB : 600 * MB,
    node ? "node:http's header limit (431)" : "128 MiB growth while data stopped, then 431",
    await trailer(port, pid, path, 1024 * MB),
  );
  return rows;
}

async function withDev(stack: "deno" | "node", main: string, small: boolean): Promise<HostileRow[]> {
  const dir = await Deno.makeTempDir();
  Deno.env.set("HOOKTAP_STACK", stack); // inherited by dev
  await Deno.writeTextFile(
    `${dir}/hooktap.config.ts`,
    `export default { port: 0, ui: false, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
  );
  const { child, match } = await spawnUntil(
    ["run", "-A", main, "dev", "--port", "0"],
    dir,
    /listening on http:\/\/[^:]+:(\d+)/,
  );
  try {
    const port = Number(match[1]);
    await fetch(`http://127.0.0.1:${port}/webhook`, { method: "POST", body: "{}" }).then((r) =>
      r.arrayBuffer()
    );
    return await measureOne(
      `dev (${stack === "deno" ? "Deno.serve" : "node:http"})`,
      port,
      child.pid,
      "/webhook",
      small,
      stack === "node",
    );
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

async function withHub(main: string, small: boolean): Promise<HostileRow[]> {
  const dir = await Deno.makeTempDir();
  const { child, match } = await spawnUntil(
    ["run", "-A", main, "hub", "serve", "--port", "0", "--kv", `${dir}/hub.sqlite`, "--admin-token", "admin"],
    dir,
    /listening on (http:\/\/127\.0\.0\.1:(\d+))/,
  );
  try {
    const url = match[1]!;
    const made = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", main, "hub", "channel", "create", "--hub", url, "--admin-token", "admin", "--json"],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const path = new URL(JSON.parse(new TextDecoder().decode(made.stdout)).url).pathname;
    return await measureOne("hub", Number(match[2]), child.pid, path, small, false);
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

/** Measures every hostile input on dev (both stacks) and the hub. */
export async function measureHostile(
  options: { main?: string | undefined; small?: boolean; log?: (line: string) => void } = {},
): Promise<HostileRow[]> {
  const main = options.main ?? new URL("../main.ts", import.meta.url).pathname;
  const small = options.small ?? false;
  const rows: HostileRow[] = [];
  for (const stack of ["deno", "node"] as const) {
    options.log?.(`hostile inputs: dev on ${stack}`);
    rows.push(...await withDev(stack, main, small));
  }
  options.log?.("hostile inputs: hub");
  rows.push(...await withHub(main, small));
  return rows;
}

/** The rows as a Markdown table. */
export function hostileReport(rows: HostileRow[]): string {
  const mb = (b: number) => `${(b / MB).toFixed(0)} MB`;
  const out = [
    "## Hostile inputs: RSS growth beside its bound",
    "",
    "| server | input | RSS growth | bound | within | what happened |",
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    out.push(
      `| ${r.target} | ${r.input} | ${r.growth >= 0 ? "+" : ""}${mb(r.growth)} | < ${
        mb(r.bound)
      } (${r.boundText}) | ${r.growth < r.bound ? "yes" : "**no**"} | ${r.outcome} |`,
    );
  }
  return out.join("\n") + "\n";
}

if (import.meta.main) {
  const small = Deno.args.includes("--small");
  const main = Deno.args.find((a) => !a.startsWith("--"));
  console.log(hostileReport(await measureHostile({ small, main, log: (l) => console.error(l) })));
}
