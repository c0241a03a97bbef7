/**
 * Soak: a steady load against a real `hooktap dev`, run as `deno task dev`
 * runs it (its V8 flags: a capped young generation), for a bounded time while
 * its resident memory is sampled from /proc; memory must level off. (Without
 * the cap V8's old generation takes one more step of ~25 MiB after ~40 s at
 * this rate, then levels off at ~134 MiB: measured over 120 s.)
 *
 * HOOKTAP_SOAK_SECONDS (default 45) and HOOKTAP_SOAK_RPS (default 1000)
 * make it longer or heavier for local runs.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { devTaskFlags, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { LOAD_CONFIG, payload, rssKiB, runLoad } from "./_load.ts";

const SECONDS = Number(Deno.env.get("HOOKTAP_SOAK_SECONDS") ?? 45);
const RPS = Number(Deno.env.get("HOOKTAP_SOAK_RPS") ?? 1000);
const CONNECTIONS = 25;

/** Lines of a file too big to hold as one string, and whether it ends with a newline. */
async function countLines(path: string): Promise<{ lines: number; endsClean: boolean }> {
  using file = await Deno.open(path);
  let lines = 0;
  let last = 0x0a;
  for await (const chunk of file.readable) {
    for (const b of chunk) if (b === 0x0a) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  return { lines, endsClean: last === 0x0a };
}

function max(values: number[]): number {
  return values.reduce((a, b) => Math.max(a, b), 0);
}

Deno.test({
  name: `a ${SECONDS} s soak at ~${RPS} requests/s: dev's resident memory levels off`,
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    // As users run it (`deno task dev`'s permissions and V8 flags); activity lines on: they are part of the
    // steady state.
    await using dev = await startDev(tmp.path, [], { permissions: devTaskFlags() });
    const pid = dev.child.pid;

    const samples: number[] = [];
    const startedAt = Date.now();
    const endAt = startedAt + SECONDS * 1000;
    const sampler = (async () => {
      while (Date.now() < endAt) {
        const kib = await rssKiB(pid).catch(() => undefined);
        if (kib === undefined) {
          throw new Error(`hooktap dev (pid ${pid}) went away mid-soak:\n${dev.stderr()}`);
        }
        samples.push(kib);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    // Each connection paces itself to RPS / CONNECTIONS; bodies up to 4 KiB (no 1 MiB ones).
    const result = await runLoad({
      port: dev.port,
      connections: CONNECTIONS,
      intervalMs: CONNECTIONS / RPS * 1000,
      stop: () => Date.now() >= endAt,
      body: (i) => {
        for (let k = i;; k++) {
          const p = payload(k, 7);
          if (p.bytes.length <= 4 * 1024) return p;
        }
      },
    });
    await sampler;
    const sent = result.sent;

    assert.equal(result.clientErrors, 0);
    assert.deepEqual([...result.statuses.keys()], [200]);
    const { lines, endsClean } = await countLines(join(tmp.path, ".hooktap", "events.jsonl"));
    assert.ok(endsClean);
    assert.equal(lines, result.acked.size);

    const third = Math.floor(samples.length / 3);
    const middle = max(samples.slice(third, 2 * third));
    const last = max(samples.slice(2 * third));
    const first = samples[0]!;
    const mib = (k: number) => (k / 1024).toFixed(1);
    // deno-lint-ignore no-console
    console.log(
      `soak: ${SECONDS} s, ${sent} requests, ${lines} stored; RSS MiB start ${mib(first)}, ` +
        `middle-third max ${mib(middle)}, last-third max ${mib(last)}, end ${mib(samples.at(-1)!)}\n` +
        `samples (MiB): ${samples.filter((_, i) => i % 8 === 0).map(mib).join(" ")}`,
    );
    // Levels off: the last third may not climb well above the middle third.
    assert.ok(
      last <= middle * 1.15 + 8 * 1024,
      `RSS kept growing: middle third peaked at ${mib(middle)} MiB, last third at ${mib(last)} MiB`,
    );
    assert.equal(await dev.stop("SIGTERM"), 0);
  },
});
