/**
 * `hooktap dev` as a person starts it: from the command to the port accepting connections, in a project
 * whose config has a GitHub endpoint with a secret, then the first signed request's answer as the sender sees
 * it (dev loads what a first request needs while idle) and the second's. With `--base OTHER/main.ts`, that
 * checkout runs in turns with this one and the ratios are taken pair by pair.
 *
 *     deno run -A bench/dev_start.ts [--runs 15] [--base ../other/main.ts]
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./proc.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" }, base: { type: "string" } },
});
const RUNS = Number(values.runs);
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const mains: [string, string][] = [["this checkout", MAIN]];
if (values.base !== undefined) mains.push(["base", values.base]);

const dir = await Deno.makeTempDir({ prefix: "hooktap_dev_start_" });
const port = freePort();
await Deno.writeTextFile(
  join(dir, "hooktap.config.ts"),
  `export default { port: ${port}, endpoints: [{ name: "github", path: "/github", method: "POST", ` +
    `provider: "github", secret: "s3cret" }] };\n`,
);
const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
const key = await crypto.subtle.importKey(
  "raw",
  new TextEncoder().encode("s3cret"),
  {
    name: "HMAC",
    hash: "SHA-256",
  },
  false,
  ["sign"],
);
const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
const signature = "sha256=" + [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");

async function post(): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(`http://127.0.0.1:${port}/github`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-github-event": "ping",
      "x-github-delivery": crypto.randomUUID(),
      "x-hub-signature-256": signature,
    },
  });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`dev answered ${r.status}`);
  return performance.now() - t0;
}

/** One start: ms to listening, then the first and the second signed request's answer. */
async function once(main: string): Promise<[number, number, number]> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "dev", "--quiet", "--no-ui"],
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let waited = 0;; waited++) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        break;
      } catch {
        if (waited > 10_000) throw new Error("dev did not listen within 10 s");
        await new Promise((r) => setTimeout(r, 1));
      }
    }
    const listening = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 300)); // a person's pause before the first webhook
    return [listening, await post(), await post()];
  } finally {
    child.kill("SIGINT");
    await child.status;
  }
}

await post().catch(() => {}); // this process's own first fetch, out of the figures
const results = new Map<string, [number, number, number][]>(mains.map(([name]) => [name, []]));
try {
  for (const [, main] of mains) await once(main); // warm Deno's caches
  for (let i = 0; i < RUNS; i++) {
    for (const [name, main] of mains) results.get(name)!.push(await once(main));
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const lines = [
  `hooktap dev --no-ui, ${RUNS} starts each${mains.length > 1 ? ", in turns" : ""}; medians, ms`,
  "",
  "| checkout | to listening | first signed request | second |",
  "|---|---:|---:|---:|",
];
for (const [name] of mains) {
  const rs = results.get(name)!;
  lines.push(
    `| ${name} | ${med(rs.map((r) => r[0])).toFixed(0)} | ${med(rs.map((r) => r[1])).toFixed(1)} | ${
      med(rs.map((r) => r[2])).toFixed(1)
    } |`,
  );
}
if (mains.length > 1) {
  const a = results.get("this checkout")!, b = results.get("base")!;
  lines.push(
    "",
    `this checkout / base, pair by pair (median): to listening ${
      med(a.map((r, i) => r[0] / b[i]![0])).toFixed(2)
    }, first signed request ${med(a.map((r, i) => r[1] / b[i]![1])).toFixed(2)}`,
  );
}
// deno-lint-ignore no-console
console.log(lines.join("\n"));
