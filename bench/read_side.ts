/**
 * The read side: each browsing command on the generated store, beside the
 * start-up floor (`deno run` of an empty script), with its peak memory.
 * A command this hooktap does not have yet is reported as missing, not run.
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import type { StoreMeta } from "./store_gen.ts";
import { type CommandTiming, runOnce, type RunOutput, timeCommand } from "./timing.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const MAIN = here("../main.ts");
const DENO = Deno.execPath();
const hooktap = (...args: string[]) => [DENO, "run", "-A", MAIN, ...args];

/** One measured command of the read side. */
export interface ReadMeasure {
  key:
    | "floor"
    | "help"
    | "logs"
    | "inspect-id"
    | "replay"
    | "inspect-endpoint"
    | "complete-endpoint"
    | "complete-id";
  label: string;
  /** The command's `hooktap` subcommand, checked against `hooktap --help`. */
  needs?: string;
  /** `missing` when this hooktap has no such command. */
  timing: CommandTiming | "missing";
}

/** Options of {@linkcode measureReadSide}. */
export interface ReadSideOptions {
  dir: string;
  meta: StoreMeta;
  runs: number;
  warmup: number;
  scratch: string;
  log?: (line: string) => void;
}

function expect(what: string, out: RunOutput, ...needles: string[]): void {
  for (const needle of needles) {
    if (!out.stdout.includes(needle)) {
      throw new Error(`${what} did not print ${needle}:\n${out.stdout.slice(0, 2000)}${out.stderr}`);
    }
  }
}

/** The subcommands `hooktap --help` lists. */
async function commandsOf(cwd: string, scratch: string): Promise<Set<string>> {
  const { stdout } = await runOnce(hooktap("--help"), cwd, scratch);
  const section = stdout.split(/^Commands:$/m)[1] ?? "";
  return new Set([...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!));
}

/** Measures every read command on the store in `o.dir`; the cold index rebuild once. */
export async function measureReadSide(
  o: ReadSideOptions,
): Promise<{ measures: ReadMeasure[]; coldEndpointMs: number | undefined; replayed: number }> {
  const { meta } = o;
  let replayed = 0;
  let replayOk = true;
  const sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const body = await request.text();
    replayed++;
    if (body.length === 0 || !request.headers.has("x-hub-signature-256")) replayOk = false;
    return new Response("received");
  });
  const to = `http://127.0.0.1:${sink.addr.port}/sink`;
  try {
    const available = await commandsOf(o.dir, o.scratch);
    const plan: [Omit<ReadMeasure, "timing">, string[], ((out: RunOutput) => void) | undefined][] = [
      [
        { key: "floor", label: "deno run empty.ts (floor)" },
        [DENO, "run", "-A", here("./empty.ts")],
        undefined,
      ],
      [
        { key: "help", label: "hooktap --help" },
        hooktap("--help"),
        (out) => expect("--help", out, "Usage: hooktap"),
      ],
      [
        // As the shell scripts call it at each TAB (src/completion/scripts.ts).
        {
          key: "complete-endpoint",
          label: "hooktap complete -- inspect --endpoint ''",
          needs: "completions",
        },
        hooktap("complete", "--", "inspect", "--endpoint", ""),
        (out) => expect("complete (endpoints)", out, "github\t"),
      ],
      [
        { key: "complete-id", label: "hooktap complete -- replay ''", needs: "completions" },
        hooktap("complete", "--", "replay", ""),
        (out) => expect("complete (ids)", out, meta.lastIds.at(-1)!),
      ],
      [
        { key: "logs", label: "hooktap logs (last 20)", needs: "logs" },
        hooktap("logs"),
        (out) => expect("logs", out, meta.lastIds[0]!, meta.lastIds.at(-1)!),
      ],
      [
        { key: "inspect-id", label: "hooktap inspect <id near start>", needs: "inspect" },
        hooktap("inspect", meta.nearStartId),
        (out) => expect("inspect <id>", out, meta.nearStartId),
      ],
      [
        { key: "replay", label: "hooktap replay <id near start>", needs: "replay" },
        hooktap("replay", meta.nearStartId, "--to", to),
        () => {
          if (replayed === 0 || !replayOk) throw new Error("replay did not deliver the event to the sink");
        },
      ],
      [
        {
          key: "inspect-endpoint",
          label: `hooktap inspect --endpoint ${meta.earlyEndpoint}`,
          needs: "inspect",
        },
        hooktap("inspect", "--endpoint", meta.earlyEndpoint),
        (out) => expect("inspect --endpoint", out, meta.earlyEndpointId),
      ],
    ];

    let coldEndpointMs: number | undefined;
    if (available.has("inspect")) {
      // Once without the index `hooktap dev` keeps (lost or deleted): the reader must scan.
      const index = join(o.dir, ".hooktap/index.json");
      await Deno.rename(index, `${index}.aside`);
      try {
        const argv = hooktap("inspect", "--endpoint", meta.earlyEndpoint);
        coldEndpointMs = (await runOnce(argv, o.dir, o.scratch)).ms;
      } finally {
        await Deno.rename(`${index}.aside`, index);
      }
      o.log?.(`  inspect --endpoint without .hooktap/index.json: ${coldEndpointMs.toFixed(0)} ms`);
    }
    const measures: ReadMeasure[] = [];
    for (const [m, argv, check] of plan) {
      if (m.needs !== undefined && !available.has(m.needs)) {
        o.log?.(`  ${m.label}: this hooktap has no \`${m.needs}\` command yet: not measured`);
        measures.push({ ...m, timing: "missing" });
        continue;
      }
      const timing = await timeCommand(argv, {
        cwd: o.dir,
        runs: o.runs,
        warmup: o.warmup,
        scratch: o.scratch,
        check,
      });
      measures.push({ ...m, timing });
      const sorted = [...timing.ms].sort((x, y) => x - y);
      o.log?.(`  ${m.label.padEnd(40)} median ${sorted[sorted.length >> 1]!.toFixed(1)} ms`);
    }
    return { measures, coldEndpointMs, replayed };
  } finally {
    await sink.shutdown();
  }
}
