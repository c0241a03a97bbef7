/**
 * CPU per event of the forward read-back alone (issue 36): `storeBacklog(...).read` over a log of 20,000 of
 * the benchmark's GitHub pushes, taking 32 events per refill as a backlogged lane does, in rounds; with
 * `--base`, another checkout's `src/send/backlog.ts` beside this one's, in turns (pin it to one core).
 *
 *     taskset -c 0 deno run -A bench/forward_readback.ts [--events 20000] [--rounds 6] [--base /other/main.ts]
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { githubHeaders, pushRecord } from "./payload.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { events: { type: "string" }, rounds: { type: "string" }, base: { type: "string" } },
});
const N = Number(values.events ?? 20_000);
const ROUNDS = Number(values.rounds ?? 6);
const HERE = fileURLToPath(new URL("../", import.meta.url));
const roots: [string, string][] = [["this checkout", HERE]];
if (values.base !== undefined) roots.unshift(["base", dirname(values.base)]);
const trees = await Promise.all(roots.map(async ([name, root]) => {
  const url = (p: string) => pathToFileURL(join(root, p)).href;
  const { storeBacklog } = await import(url("src/send/backlog.ts"));
  const { storePaths } = await import(url("src/store/paths.ts"));
  return { name, storeBacklog, storePaths };
}));

const dir = await Deno.makeTempDir({ prefix: "hooktap_fwd_readback_" });
try {
  const headers = await githubHeaders();
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    lines.push(
      JSON.stringify(
        pushRecord(
          `evt_20261125_01M84MVMHQ2YM5SN${String(i).padStart(10, "0")}`,
          headers,
          "http://127.0.0.1:9/",
        ),
      ) + "\n",
    );
  }
  await Deno.writeTextFile(join(dir, "events.jsonl"), lines.join(""));
  /** CPU µs per event to read the whole log back, 32 events a refill. */
  const drain = async (tree: typeof trees[number]) => {
    const backlog = tree.storeBacklog(tree.storePaths(dir));
    let place = { offset: 0, id: "" };
    let got = 0;
    const c0 = process.cpuUsage();
    for (;;) {
      let n = 0;
      const end = await backlog.read(place, "github", () => {
        if (n === 32) return "stop";
        n++;
        got++;
        return "take";
      });
      if (end.stopped === undefined) break;
      place = end.stopped;
    }
    const c = process.cpuUsage(c0);
    backlog.close?.(); // a tree without it opens the log at each read
    if (got !== N) throw new Error(`${tree.name}: ${got} of ${N} events read back`);
    return (c.user + c.system) / N;
  };
  for (const tree of trees) await drain(tree); // warm up
  const results = new Map<string, number[]>();
  for (let r = 0; r < ROUNDS; r++) {
    for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
      results.set(tree.name, [...(results.get(tree.name) ?? []), await drain(tree)]);
    }
  }
  const out = [`forward read-back alone: ${N} events, 32 a refill, ${ROUNDS} rounds; CPU µs per event`];
  for (const [name, v] of results) {
    const s = [...v].sort((a, b) => a - b);
    out.push(
      `  ${name}: median ${s[Math.floor(s.length / 2)]!.toFixed(2)} (${s[0]!.toFixed(1)}–${
        s.at(-1)!.toFixed(1)
      })`,
    );
  }
  // deno-lint-ignore no-console
  console.log(out.join("\n"));
} finally {
  await Deno.remove(dir, { recursive: true });
}
