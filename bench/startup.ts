/**
 * Start-up (issue 36): each command beside `deno run --quiet empty.ts`, run in turns (A B A B ...) so
 * each ratio is taken pair by pair on the same machine state, and the module counts of the start-up
 * graph. From a checkout: `--help`, `logs`, `complete`, one `trigger` (to a local sink). From the packed
 * npm package installed with npm (when npm is on the PATH): `hooktap --help`, `hooktap logs`, one
 * `hooktap trigger` (to the same sink) and `hooktap inspect <id>` through the bin npm links, against the
 * same Deno binary the package runs on. From `deno task install`'s shim (into a temp install root): one
 * `hooktap trigger` (to the same sink). Each figure is printed beside its target.
 *
 *     deno run -A bench/startup.ts [--runs N]
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { median } from "./stats.ts";
import { buildEvent, eventLine } from "../src/event/record.ts";
import { createIdFactory } from "../src/event/id.ts";
import { runOnce, type RunOutput } from "./timing.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const ROOT = here("../");
const MAIN = here("../main.ts");
const EMPTY = here("./empty.ts");
const DENO = Deno.execPath();

/** One measured ratio. */
export interface StartupRow {
  label: string;
  /** Median of A/B over the pairs. */
  ratio: number;
  /** Median wall ms of A and of B. */
  ms: number;
  floorMs: number;
  target: string;
  met: boolean;
}

/** A module count of the start-up graph. */
export interface CountRow {
  label: string;
  count: number;
  limit: number;
}

/** What {@linkcode measureStartup} found. */
export interface StartupResults {
  rows: StartupRow[];
  counts: CountRow[];
  /** Why the npm rows are missing, when they are. */
  npmSkipped?: string;
}

/** Options of {@linkcode measureStartup}. */
export interface StartupOptions {
  runs: number;
  scratch: string;
  /** Pack and install the npm package (needs npm and the registry or its cache). @default true */
  npm?: boolean;
  /** `deno task install` into a temp install root and time its shim. @default the value of `npm` */
  install?: boolean;
  log?: (line: string) => void;
}

async function paired(
  a: string[],
  b: string[],
  o: {
    cwd: string;
    /** Where `b` runs (default `cwd`). */
    floorCwd?: string;
    runs: number;
    scratch: string;
    check?: (out: RunOutput) => void;
  },
): Promise<{ ratio: number; ms: number; floorMs: number }> {
  const ratios: number[] = [];
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i <= o.runs; i++) {
    const ra = await runOnce(a, o.cwd, o.scratch);
    if (i === 0) o.check?.(ra);
    const rb = await runOnce(b, o.floorCwd ?? o.cwd, o.scratch);
    if (i === 0) continue; // warm-up pair
    ratios.push(ra.ms / rb.ms);
    as.push(ra.ms);
    bs.push(rb.ms);
  }
  return { ratio: median(ratios), ms: median(as), floorMs: median(bs) };
}

function expect(what: string, needle: string | RegExp) {
  return (out: RunOutput) => {
    const text = out.stdout + out.stderr;
    if (typeof needle === "string" ? !text.includes(needle) : !needle.test(text)) {
      throw new Error(`${what} did not print ${needle}:\n${text.slice(0, 2000)}`);
    }
  };
}

/**
 * Project files Deno reads ahead of running `roots`: their graph as `deno info` reports it, through code
 * imports only (a type-only import, such as `typeof import("./run.ts")`, is not loaded by `deno run`).
 */
async function graphCount(roots: string[]): Promise<number> {
  const files = new Set<string>();
  for (const root of roots) {
    const out = await new Deno.Command(DENO, {
      args: ["info", "--json", `--config=${join(ROOT, "deno.json")}`, root],
      stdout: "piped",
      stderr: "null",
    }).output();
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      roots: string[];
      modules: { specifier: string; dependencies?: { code?: { specifier?: string } }[] }[];
      redirects: Record<string, string>;
    };
    const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
    const stack = [...info.roots];
    while (stack.length > 0) {
      const next = stack.pop()!;
      const specifier = info.redirects[next] ?? next;
      if (files.has(specifier) || !specifier.startsWith("file:")) continue;
      files.add(specifier);
      for (const d of bySpecifier.get(specifier)?.dependencies ?? []) {
        if (d.code?.specifier) stack.push(d.code.specifier);
      }
    }
  }
  return files.size;
}

/** Every module `deno info` lists for `root`: code, types, dynamic imports and `node:` / `npm:` ones. */
async function infoModules(root: string): Promise<number> {
  const out = await new Deno.Command(DENO, {
    args: ["info", "--json", `--config=${join(ROOT, "deno.json")}`, root],
    stdout: "piped",
    stderr: "null",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: unknown[];
    npmPackages?: object;
  };
  return info.modules.length;
}

/** A store of `count` small events in `dir`/.hooktap, written by `dev` itself (a POST each). */
async function smallStore(dir: string, count: number): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const init = await runOnce([DENO, "run", "-A", MAIN, "init", "--yes"], dir, dir);
  expect("init", "hooktap.config.ts")(init);
  const dev = await startDev(dir);
  for (let i = 0; i < count; i++) {
    const r = await fetch(`${dev.url}/webhook`, { method: "POST", body: JSON.stringify({ n: i }) });
    await r.body?.cancel();
  }
  await dev.stop();
}

/** `hooktap dev --port 0` from this checkout in `dir`, once it listens. */
async function startDev(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", MAIN, "dev", "--json", "--port", "0"],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("dev exited before it was ready");
    text += value;
  }
  const { url } = JSON.parse(text.split("\n")[0]!) as { url: string };
  // dev prints a line per event: read them on, so that it never waits on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done) { /* dev's event lines */ }
  })().catch(() => {});
  return {
    url,
    async stop() {
      child.kill("SIGINT");
      await child.status;
      await drained;
    },
  };
}

/**
 * A project that forwarded for a month: `events` forwarded events of today, each delivered once, after
 * `history` older attempts (spread over the 30 days before) in `.hooktap/deliveries.jsonl`, as `dev` writes
 * them. `logs` shows today's events with their delivery state.
 */
export async function forwardedStore(dir: string, events: number, history: number): Promise<void> {
  await Deno.mkdir(join(dir, ".hooktap"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "hooktap.config.ts"),
    `export default { port: 8787, endpoints: [{ name: "github", path: "/webhook", method: "POST", ` +
      `forward: { to: "http://127.0.0.1:3000/hook" } }] };\n`,
  );
  const now = Date.now();
  const attempt = (event: string, at: number) =>
    JSON.stringify({
      v: 2,
      id: createIdFactory("dlv")(new Date(at)),
      event,
      endpoint: "github",
      source: "forward",
      target: "127.0.0.1:3000",
      url: "http://127.0.0.1:3000/hook",
      method: "POST",
      attempt: 1,
      startedAt: new Date(at).toISOString(),
      durationMs: 3.2,
      outcome: "delivered",
      status: 200,
      statusText: "OK",
      headers: [["content-type", "application/json"], ["content-length", "11"]],
      body: '{"ok":true}',
      bodyEncoding: "utf8",
      bodySize: 11,
    }) + "\n";
  const month = 30 * 24 * 3600_000;
  const lines: string[] = [];
  for (let i = 0; i < history; i++) {
    const at = now - month + Math.floor((i / history) * (month - 3600_000));
    lines.push(attempt(createIdFactory("evt")(new Date(at - 5)), at));
  }
  const stored: string[] = [];
  for (let i = 0; i < events; i++) {
    const at = now - 600_000 + i * 1000;
    const id = createIdFactory("evt")(new Date(at));
    const event = buildEvent({
      id,
      endpoint: "github",
      receivedAt: new Date(at),
      method: "POST",
      path: "/webhook",
      query: "",
      headers: [["content-type", "application/json"], ["x-github-event", "push"]],
      body: new TextEncoder().encode(JSON.stringify({ n: i })),
      remoteAddr: "127.0.0.1",
    });
    event.forward = { to: "http://127.0.0.1:3000/hook", mode: "queue" };
    stored.push(eventLine(event));
    lines.push(attempt(id, at + 20));
  }
  await Deno.writeTextFile(join(dir, ".hooktap", "events.jsonl"), stored.join(""));
  await Deno.writeTextFile(join(dir, ".hooktap", "deliveries.jsonl"), lines.join(""));
}

/** Packs the npm package and installs it with npm into `dir`; resolves to its bin and its Deno binary. */
async function npmInstall(dir: string): Promise<{ bin: string; deno: string } | string> {
  const npm = await new Deno.Command("npm", { args: ["--version"], stdout: "null", stderr: "null" }).output()
    .then((o) => o.success, () => false);
  if (!npm) return "npm is not on the PATH";
  const pack = await new Deno.Command(DENO, {
    args: ["task", "--quiet", "pack"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!pack.success) return `deno task pack failed: ${new TextDecoder().decode(pack.stderr)}`;
  const tgz = new TextDecoder().decode(pack.stdout).trim().split(" ")[0]!;
  const prefix = join(dir, "prefix");
  const install = await new Deno.Command("npm", {
    args: ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", tgz],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!install.success) return `npm install failed: ${new TextDecoder().decode(install.stderr)}`;
  const bin = join(prefix, "bin", "hooktap");
  const text = await Deno.readTextFile(bin);
  const deno = /^deno='([^']+)'$/m.exec(text)?.[1];
  if (deno === undefined) return "the postinstall did not write the shell launcher";
  return { bin, deno };
}

/**
 * `deno task install` into `dir`'s own install root (DENO_INSTALL_ROOT; it builds the checkout's
 * dist/deno_install/, as the task does); resolves to the shim, or why there is none.
 */
async function denoInstall(dir: string): Promise<string | { why: string }> {
  const root = join(dir, "deno-root");
  const out = await new Deno.Command(DENO, {
    args: ["task", "--quiet", "install"],
    cwd: ROOT,
    env: { DENO_INSTALL_ROOT: root },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) return { why: `deno task install failed: ${new TextDecoder().decode(out.stderr)}` };
  return join(root, "bin", "hooktap");
}

/** Measures every start-up figure and count. */
export async function measureStartup(o: StartupOptions): Promise<StartupResults> {
  const log = o.log ?? (() => {});
  const dir = join(o.scratch, "startup");
  await Deno.mkdir(dir, { recursive: true });
  const project = join(dir, "app");
  log("start-up: a store of 50 events");
  await smallStore(project, 50);
  const floor = [DENO, "run", "--quiet", EMPTY];
  const hooktap = (...args: string[]) => [DENO, "run", "-A", MAIN, ...args];
  const t = { cwd: project, runs: o.runs, scratch: dir };
  const rows: StartupRow[] = [];
  const row = (label: string, r: { ratio: number; ms: number; floorMs: number }, limit?: number) =>
    rows.push({
      label,
      ...r,
      target: limit === undefined ? "(no target)" : `≤ ${limit}×`,
      met: limit === undefined || r.ratio <= limit,
    });

  log("start-up: from a checkout");
  row(
    "checkout: hooktap --help / empty script",
    await paired(hooktap("--help"), floor, { ...t, check: expect("--help", "Usage: hooktap") }),
  );
  row(
    "checkout: hooktap logs / empty script",
    await paired(hooktap("logs"), floor, { ...t, check: expect("logs", "evt_") }),
  );
  // A month of forwarding behind today's events: logs reads only their deliveries (src/send/deliveries_read.ts),
  // so it costs what the same events cost without that history (our own aim: ≤ 1.2×; it was ~5.7×).
  const forwarded = join(dir, "forwarded");
  const fresh = join(dir, "forwarded-fresh");
  await forwardedStore(forwarded, 50, 50_000);
  await forwardedStore(fresh, 50, 0);
  row(
    "checkout: hooktap logs, 50 forwarded events after 50,000 older deliveries / without them",
    await paired(hooktap("logs"), hooktap("logs"), {
      ...t,
      cwd: forwarded,
      floorCwd: fresh,
      check: expect("logs", "→ 200"),
    }),
    1.2,
  );
  row(
    "checkout: hooktap complete -- logs --endpoint '' / empty script",
    await paired(hooktap("complete", "--", "logs", "--endpoint", ""), floor, {
      ...t,
      check: expect("complete", "default"),
    }),
  );

  const sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    await request.arrayBuffer();
    return new Response("ok");
  });
  let npmSkipped: string | undefined = o.npm === false ? "not part of this run (--smoke)" : undefined;
  // How `trigger` is mostly run: to the project's running dev, signed with its config's secret, so it loads
  // the config (./src/config/load.ts) and finds dev through its lock. No target: the figure users feel.
  const typical = join(dir, "typical");
  await Deno.mkdir(typical, { recursive: true });
  await Deno.writeTextFile(
    join(typical, "hooktap.config.ts"),
    `export default { port: 8787, endpoints: [{ name: "github", path: "/github", method: "POST", ` +
      `provider: "github", secret: Deno.env.get("GITHUB_WEBHOOK_SECRET") ?? "dev-secret" }] };\n`,
  );
  const typicalDev = await startDev(typical);
  const typicalRun = { ...t, cwd: typical, check: expect("trigger to dev", "200") };
  try {
    const to = `http://127.0.0.1:${sink.addr.port}/hook`;
    const trigger = ["trigger", "github", "push", "--to", to, "--secret", "s"];
    row(
      "checkout: one hooktap trigger github push (signed) / empty script",
      await paired(hooktap(...trigger), floor, { ...t, check: expect("trigger", "200") }),
      1.6,
    );
    row(
      "checkout: hooktap trigger github push to the running dev (the config's secret) / empty script",
      await paired(hooktap("trigger", "github", "push"), floor, typicalRun),
    );

    if (o.install ?? o.npm !== false) {
      log("start-up: deno task install (the bundled CLI, into a temp install root)");
      const shim = await denoInstall(dir);
      if (typeof shim !== "string") throw new Error(shim.why);
      // The shim runs the `deno` of the PATH: the floor runs this one (the same, run as `deno task bench`).
      row(
        "deno task install: one hooktap trigger github push (signed) / deno run --quiet empty.ts",
        await paired([shim, ...trigger], floor, { ...t, check: expect("installed trigger", "200") }),
        1.6,
      );
    }

    if (o.npm !== false) {
      log("start-up: the npm package (deno task pack, npm install -g into a temp prefix)");
      const installed = await npmInstall(dir);
      if (typeof installed === "string") npmSkipped = installed;
      else {
        const npmFloor = [installed.deno, "run", "--quiet", EMPTY];
        row(
          "npm: hooktap --help / deno run --quiet empty.ts",
          await paired([installed.bin, "--help"], npmFloor, {
            ...t,
            // The usage line names the bin as it was run (here its path: it is not the PATH's hooktap).
            check: expect("npm --help", "[options] [command]"),
          }),
          1.35,
        );
        row(
          "npm: hooktap logs / deno run --quiet empty.ts",
          await paired([installed.bin, "logs"], npmFloor, { ...t, check: expect("npm logs", "evt_") }),
          1.35,
        );
        row(
          "npm: one hooktap trigger github push (signed) / deno run --quiet empty.ts",
          await paired([installed.bin, ...trigger], npmFloor, { ...t, check: expect("npm trigger", "200") }),
          1.6,
        );
        row(
          "npm: hooktap trigger github push to the running dev (the config's secret) / deno run --quiet empty.ts",
          await paired([installed.bin, "trigger", "github", "push"], npmFloor, typicalRun),
        );
        // The newest event of the store: `inspect` reads the index and one line.
        const lines = (await Deno.readTextFile(join(project, ".hooktap", "events.jsonl"))).trim().split("\n");
        const id = (JSON.parse(lines.at(-1)!) as { id: string }).id;
        row(
          "npm: hooktap inspect <id> / deno run --quiet empty.ts",
          await paired([installed.bin, "inspect", id], npmFloor, { ...t, check: expect("npm inspect", id) }),
          1.35,
        );
      }
    }
  } finally {
    await typicalDev.stop();
    await sink.shutdown();
  }

  log("start-up: module counts");
  const counts: CountRow[] = [
    {
      label: "project files Deno reads for --help (main.ts's graph, then the command tree's)",
      count: await graphCount([MAIN, here("../src/cli.ts")]),
      limit: 60,
    },
    {
      label: "project files Deno reads for logs (main.ts, logs/command.ts and logs/run.ts)",
      count: await graphCount([
        MAIN,
        here("../src/commands/logs/command.ts"),
        here("../src/commands/logs/run.ts"),
      ]),
      limit: 60,
    },
    {
      label: "project files Deno reads for complete (main.ts, the command tree, complete/run.ts)",
      count: await graphCount([MAIN, here("../src/cli.ts"), here("../src/commands/complete/run.ts")]),
      limit: 60,
    },
    {
      label: "modules `deno info mod.ts` lists (`.`: types and dynamic imports included)",
      count: await infoModules(here("../mod.ts")),
      limit: 25,
    },
  ];
  return { rows, counts, ...(npmSkipped ? { npmSkipped } : {}) };
}

/** The report's section. */
export function startupReport(r: StartupResults): string {
  const lines = [
    "## Start-up (issue 36)",
    "",
    "Each command beside `deno run --quiet empty.ts`, in turns, the ratio taken pair by pair (median):",
    "",
    "| command / floor | ratio | target | median ms | floor ms |",
    "| --- | ---: | --- | ---: | ---: |",
    ...r.rows.map((x) =>
      `| ${x.label} | ${x.ratio.toFixed(2)}× | ${x.target}${x.met ? "" : " (missed)"} | ${
        x.ms.toFixed(0)
      } | ${x.floorMs.toFixed(0)} |`
    ),
    ...(r.npmSkipped ? ["", `npm: skipped (${r.npmSkipped})`] : []),
    "",
    "| start-up graph | count | target |",
    "| --- | ---: | --- |",
    ...r.counts.map((c) =>
      `| ${c.label} | ${c.count} | ≤ ${c.limit}${c.count <= c.limit ? "" : " (missed)"} |`
    ),
    "",
  ];
  return lines.join("\n");
}

if (import.meta.main) {
  const runs = Number(Deno.args[Deno.args.indexOf("--runs") + 1] ?? 15) || 15;
  const scratch = await Deno.makeTempDir({ prefix: "hooktap_bench_startup_" });
  try {
    // deno-lint-ignore no-console
    const results = await measureStartup({ runs, scratch, log: (l) => console.error(l) });
    // deno-lint-ignore no-console
    console.log(startupReport(results));
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}
