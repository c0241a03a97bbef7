/**
 * Where `hooktap dev` spends its CPU under the benchmark's load: runs it
 * with `--cpu-prof` on core 0, loads it from core 1 like (b), and prints
 * the functions with the most self time and the handler's subtree.
 *
 *     deno run -A bench/profile.ts [--seconds 6] [--top 30]
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pickLoadGenerator, runLoad } from "./load.ts";
import { BODY, githubHeaders } from "./payload.ts";
import { freePort, onCore, startServer } from "./proc.ts";
import { devFlags } from "./write_side.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

/** A frame of a V8 `.cpuprofile`. */
export interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
/** A V8 `.cpuprofile`. */
export interface Profile {
  nodes: { id: number; callFrame: Frame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Self and inclusive time per function of a V8 `.cpuprofile`, as shares of the whole. */
export function summarize(profile: Profile): { self: Map<string, number>; inclusive: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (f: Frame) =>
    `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(src|bench|npm|ext)\//, "$1/")}${
      f.url ? `:${f.lineNumber + 1}` : ""
    }`;
  const ticks = new Map<number, number>();
  profile.samples.forEach((id, i) => ticks.set(id, (ticks.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...ticks.values()].reduce((a, b) => a + b, 0);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, t] of ticks) {
    const key = name(byId.get(id)!.callFrame);
    self.set(key, (self.get(key) ?? 0) + t / total);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = name(byId.get(cur)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t / total);
    }
  }
  return { self, inclusive };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { seconds: { type: "string", default: "6" }, top: { type: "string", default: "30" } },
  });
  const dir = await Deno.makeTempDir({ prefix: "hooktap_profile_" });
  try {
    await Deno.writeTextFile(
      join(dir, "hooktap.config.ts"),
      `export default { port: 8787, endpoints: [{ name: "github", path: "/webhook", method: "POST" }] };\n`,
    );
    await Deno.writeTextFile(join(dir, "body.json"), BODY);
    await Deno.writeTextFile(
      join(dir, "headers.txt"),
      (await githubHeaders()).map(([k, v]) => `${k}: ${v}\n`).join(""),
    );
    const port = freePort();
    const argv = [
      Deno.execPath(),
      "run",
      ...devFlags(),
      "--cpu-prof",
      `--cpu-prof-dir=${join(dir, "prof")}`,
      MAIN,
    ];
    const server = await startServer(onCore(0, [...argv, "dev", "--quiet", "--port", String(port)]), {
      cwd: dir,
      port,
    });
    const load = await runLoad(pickLoadGenerator(), {
      url: `http://127.0.0.1:${port}/webhook`,
      seconds: Number(values.seconds),
      connections: 64,
      core: 1,
      bodyFile: join(dir, "body.json"),
      headersFile: join(dir, "headers.txt"),
    }).finally(() => server.stop());
    const file = [...Deno.readDirSync(join(dir, "prof"))].map((e) => e.name).find((n) =>
      !n.includes("worker")
    );
    if (file === undefined) throw new Error("hooktap dev wrote no CPU profile");
    const { self, inclusive } = summarize(JSON.parse(await Deno.readTextFile(join(dir, "prof", file))));
    const top = Number(values.top);
    const us = (share: number) => ((share * Number(values.seconds) * 1e6) / load.requests).toFixed(1);
    const print = (title: string, m: Map<string, number>) => {
      // deno-lint-ignore no-console
      console.log(`\n${title} (share of the main thread's time, and µs per request)`);
      for (const [k, v] of [...m].sort((x, y) => y[1] - x[1]).slice(0, top)) {
        // deno-lint-ignore no-console
        console.log(`${(v * 100).toFixed(1).padStart(5)}%  ${us(v).padStart(6)} µs  ${k}`);
      }
    };
    // deno-lint-ignore no-console
    console.log(
      `hooktap dev under load: ${load.rps.toFixed(0)} req/s, ${load.requests} requests (profiling slows it)`,
    );
    print("Self time", self);
    print("Inclusive time", inclusive);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
