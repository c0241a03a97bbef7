/**
 * Issue 26: CPU per event of `hooktap dev` receiving and forwarding with
 * three targets of which one matches (rules), beside one target without a
 * rule (today), side by side in one run, alternating. The kernel's
 * accounting of the dev process (`/proc/PID/stat` user + system time) is
 * read once it listens and once the app has every delivery; the difference
 * divided by the events. The app is a Deno.serve in this process (not
 * counted). Loopback only, bounded in count.
 *
 *     deno run -A bench/rules_cpu.ts [--events 3000] [--rounds 3]
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { spawnUntil } from "./proc.ts";

const { values } = parseArgs({ options: { events: { type: "string" }, rounds: { type: "string" } } });
const EVENTS = Number(values.events ?? 3000);
const ROUNDS = Number(values.rounds ?? 3);
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const TICK_MS = 10; // USER_HZ = 100

let received = 0;
const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  await req.arrayBuffer();
  received++;
  return new Response(null, { status: 204 });
});
const appUrl = `http://127.0.0.1:${app.addr.port}`;

const CONFIGS = {
  one: `"${appUrl}/all"`,
  three: `[
    { name: "pushes", to: "${appUrl}/push", when: { type: ["push", "pull_request"] } },
    { name: "closed", to: "${appUrl}/closed", when: { where: "action=closed", hasHeader: "X-GitHub-Event=issues" } },
    { name: "issues", to: "${appUrl}/issues", when: { type: "issues" } },
  ]`,
} as const;

function cpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
}

async function once(kind: keyof typeof CONFIGS): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_rules_cpu_" });
  try {
    await Deno.writeTextFile(
      join(dir, "hooktap.config.ts"),
      `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST", provider: "github", forward: ${
        CONFIGS[kind]
      } }] };\n`,
    );
    const { child, match } = await spawnUntil(
      ["run", "-A", "--quiet", MAIN, "dev", "--port", "0", "--no-ui", "--quiet"],
      dir,
      /listening on http:\/\/[^:]+:(\d+)/,
    );
    const port = Number(match[1]);
    await new Promise((r) => setTimeout(r, 300));
    const before = cpuMs(child.pid);
    received = 0;
    const body = JSON.stringify({
      action: "opened",
      issue: { number: 1, title: "a bug" },
      repository: { id: 1 },
    });
    let next = 0;
    const worker = async () => {
      while (next < EVENTS) {
        next++;
        const r = await fetch(`http://127.0.0.1:${port}/gh`, {
          method: "POST",
          headers: { "X-GitHub-Event": "issues", "content-type": "application/json" },
          body,
        });
        await r.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const deadline = Date.now() + 60_000;
    while (received < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    if (received < EVENTS) throw new Error(`${kind}: only ${received} of ${EVENTS} delivered`);
    const after = cpuMs(child.pid);
    child.kill("SIGINT");
    await child.status;
    return (after - before) / EVENTS;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const results: Record<string, number[]> = { one: [], three: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of ["one", "three"] as const) results[kind]!.push(await once(kind));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const one = median(results.one!);
const three = median(results.three!);
const lines: string[] = [];
lines.push(`events per run: ${EVENTS}, rounds: ${ROUNDS} (alternating), CPU of the dev process per event:`);
lines.push(
  `  one target, no rule (today):       ${(one * 1000).toFixed(1)} µs  runs: ${
    results.one!.map((x) => (x * 1000).toFixed(0)).join(", ")
  }`,
);
lines.push(
  `  three targets with rules, 1 match: ${(three * 1000).toFixed(1)} µs  runs: ${
    results.three!.map((x) => (x * 1000).toFixed(0)).join(", ")
  }`,
);
lines.push(`  ratio three/one: ${(three / one).toFixed(2)}`);
// deno-lint-ignore no-console
console.log(lines.join("\n"));
await app.shutdown();
