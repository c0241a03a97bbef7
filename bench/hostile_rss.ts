// deno-lint-ignore-file no-console -- a benchmark script: its report goes to stdout
/**
 * Peak RSS of `hooktap dev` under hostile clients (issue 20), both stacks:
 * 200 connections that declare 25 MiB and send one byte, held 3 s.
 * Prints a Markdown table for BENCHMARKS.md. Not timed; loopback only.
 *
 *   deno run -A bench/hostile_rss.ts [path/to/main.ts]
 * @module
 */
import { spawnUntil } from "./proc.ts";

const main = Deno.args[0] ?? new URL("../main.ts", import.meta.url).pathname;

async function rssKiB(pid: number): Promise<number> {
  const m = (await Deno.readTextFile(`/proc/${pid}/status`)).match(/^VmRSS:\s+(\d+)\s+kB/m);
  return Number(m![1]);
}

async function measure(stack: "deno" | "node"): Promise<{ before: number; peak: number }> {
  const dir = await Deno.makeTempDir();
  const get = stack === "node" ? `, { name: "g", path: "/g", method: "GET" }` : "";
  Deno.env.set("HOOKTAP_STACK", stack); // inherited by dev: a GET endpoint no longer picks node:http by itself
  await Deno.writeTextFile(
    `${dir}/hooktap.config.ts`,
    `export default { port: 0, ui: false, endpoints: [{ name: "default", path: "/webhook", method: "POST" }${get}] };\n`,
  );
  const { child, match } = await spawnUntil(
    ["run", "-A", main, "dev", "--port", "0"],
    dir,
    /listening on http:\/\/[^:]+:(\d+)/,
  );
  const port = Number(match[1]);
  await fetch(`http://127.0.0.1:${port}/webhook`, { method: "POST", body: "{}" }).then((r) =>
    r.body?.cancel()
  );
  const before = await rssKiB(child.pid);
  const head = new TextEncoder().encode(
    "POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 26214000\r\n\r\n{",
  );
  const conns: Deno.TcpConn[] = [];
  for (let i = 0; i < 200; i++) {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    await c.write(head);
    conns.push(c);
  }
  let peak = before;
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 100));
    peak = Math.max(peak, await rssKiB(child.pid));
    if (peak > 2 * 1024 * 1024) break; // 2 GB: enough to show the hole, spare the machine
  }
  for (const c of conns) c.close();
  child.kill("SIGKILL");
  await child.status;
  await Deno.remove(dir, { recursive: true });
  return { before, peak };
}

const mb = (kib: number) => (kib / 1024).toFixed(0);
console.log("| stack | RSS before | peak RSS (200 × 25 MiB declared) | rise |");
console.log("|---|---|---|---|");
for (const stack of ["deno", "node"] as const) {
  const { before, peak } = await measure(stack);
  console.log(`| ${stack} | ${mb(before)} MB | ${mb(peak)} MB | +${mb(peak - before)} MB |`);
}
