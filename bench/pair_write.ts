/**
 * Two trees' `hooktap dev --quiet` side by side (issue 36, point 6): both
 * started together on core 0 and loaded at the same time by two load
 * generators on core 1 (64 connections each, the write side's GitHub push),
 * so a busy host's noise falls on both; the order of starting them swapped
 * each round. Reports each one's CPU µs per request (every thread, from
 * `/proc/PID/task/*\/stat`), then the same for the durable ceiling (c) loaded
 * alone beside nothing, for the ratio.
 *
 *     deno run -A bench/pair_write.ts --base OTHER/main.ts [--rounds 6] [--seconds 4]
 *     deno run -A bench/pair_write.ts --base-v8-flags=--max-semi-space-size=16   # this tree, other V8 flags
 *
 * `--base-v8-flags` runs the base with those V8 flags instead of `deno task dev`'s (empty: none); without
 * `--base` the base is this tree.
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { pickLoadGenerator } from "./load.ts";
import { BODY, githubHeaders } from "./payload.ts";
import { chooseConfigs, sampleThreads } from "./breakdown.ts";
import { startConfig, WRITE_CONFIGS } from "./write_side.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string" },
    "base-v8-flags": { type: "string" },
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "4" },
  },
});
const baseV8 = values["base-v8-flags"];
if (values.base === undefined && baseV8 === undefined) {
  throw new Error("--base OTHER/main.ts or --base-v8-flags FLAGS: what to compare with");
}
const [baseTree, newConfig] = values.base === undefined
  ? [chooseConfigs("b")[0]!, chooseConfigs("b")[0]!]
  : chooseConfigs("b", values.base);
const baseConfig = baseV8 === undefined ? baseTree! : {
  ...baseTree!,
  label: `${baseTree!.label} (V8 flags: ${baseV8 || "none"})`,
  argv: (port: number, dir: string) => {
    const argv = baseTree!.argv(port, dir).filter((a) => !a.startsWith("--v8-flags="));
    const at = argv.indexOf("run") + 1;
    return baseV8 === "" ? argv : [...argv.slice(0, at), `--v8-flags=${baseV8}`, ...argv.slice(at)];
  },
};
const ceiling = WRITE_CONFIGS.find((c) => c.key === "c")!;

const scratch = await Deno.makeTempDir({ prefix: "hooktap_pair_write_" });
const bodyFile = join(scratch, "body.json");
const headersFile = join(scratch, "headers.txt");
await Deno.writeTextFile(bodyFile, BODY);
await Deno.writeTextFile(headersFile, (await githubHeaders()).map(([k, v]) => `${k}: ${v}\n`).join(""));
const load = { generator: pickLoadGenerator(), connections: 64, bodyFile, headersFile };
const seconds = Number(values.seconds);

/** CPU µs per request, every thread, while `run` loads the server. */
function cpuOf(pid: number) {
  const total = (m: Map<string, { utime: number; stime: number }>) =>
    [...m.values()].reduce((s, t) => s + t.utime + t.stime, 0) * 1e4;
  const before = total(sampleThreads(pid));
  return (requests: number) => (total(sampleThreads(pid)) - before) / requests;
}

const rows: { base: number; now: number; c: number; loadavg: string }[] = [];
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = round % 2 === 0 ? [baseConfig!, newConfig!] : [newConfig!, baseConfig!];
    const running = [];
    for (const [i, config] of order.entries()) {
      running.push(await startConfig(config, join(scratch, `s${i}`), load));
    }
    const cpu: number[] = [];
    try {
      await Promise.all(running.map((r) => r.load(1))); // warm-up
      const meters = running.map((r) => cpuOf(r.server.pid));
      const results = await Promise.all(running.map((r) => r.load(seconds)));
      results.forEach((r, i) => cpu.push(meters[i]!(r.requests)));
    } finally {
      for (const r of running) await r.server.stop();
    }
    const c = await startConfig(ceiling, join(scratch, "c"), load);
    let cCpu: number;
    try {
      await c.load(1);
      const meter = cpuOf(c.server.pid);
      cCpu = meter((await c.load(seconds)).requests);
    } finally {
      await c.server.stop();
    }
    const [base, now] = round % 2 === 0 ? cpu : [cpu[1]!, cpu[0]!];
    const loadavg = Deno.readTextFileSync("/proc/loadavg").split(" ")[0]!;
    rows.push({ base: base!, now: now!, c: cCpu, loadavg });
    // deno-lint-ignore no-console
    console.log(
      `round ${round + 1}: base ${base!.toFixed(1)} µs, this tree ${now!.toFixed(1)} µs, (c) ${
        cCpu.toFixed(1)
      } µs per request; load average ${loadavg}`,
    );
  }
} finally {
  await Deno.remove(scratch, { recursive: true }).catch(() => {});
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const b = median(rows.map((r) => r.base));
const n = median(rows.map((r) => r.now));
const c = median(rows.map((r) => r.c));
const ahead = rows.filter((r) => r.now < r.base).length;
// deno-lint-ignore no-console
console.log(
  `\nmedians: base ${b.toFixed(1)}, this tree ${n.toFixed(1)}, (c) ${c.toFixed(1)} µs per request; ` +
    `CPU ratio (c)/(b): base ${(c / b).toFixed(2)}, this tree ${
      (c / n).toFixed(2)
    }; this tree ahead in ${ahead} of ${rows.length} rounds`,
);
