/**
 * Processes for the benchmark: finding tools, pinning to a core with
 * `taskset`, starting a server and waiting for its port, peak memory from
 * `/proc`. Everything listens on 127.0.0.1 only.
 * @module
 */

/** Whether `name` is an executable on PATH (or an absolute path that exists). */
export function hasCommand(name: string): boolean {
  const dirs = name.includes("/") ? [""] : (Deno.env.get("PATH") ?? "").split(":");
  for (const dir of dirs) {
    try {
      const info = Deno.statSync(dir === "" ? name : `${dir}/${name}`);
      if (info.isFile && (info.mode ?? 0o111) & 0o111) return true;
    } catch {
      // not here
    }
  }
  return false;
}

const TASKSET = hasCommand("taskset") && navigator.hardwareConcurrency >= 2;

/** Whether server and load generator get a core each. */
export const PINNED: boolean = TASKSET;

/** `argv` run on CPU `core` when `taskset` exists and there are two cores; else as is. */
export function onCore(core: number, argv: string[]): string[] {
  return TASKSET ? ["taskset", "-c", String(core), ...argv] : argv;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Resolves once something accepts connections on 127.0.0.1:`port`. */
export async function waitForPort(port: number, child: Deno.ChildProcess, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.status.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the server exited before listening on port ${port}`);
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

/** A memory figure of a live process from `/proc/PID/status`, in KiB (`VmRSS`: resident now), or NaN. */
export function rssKiB(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** Peak resident memory of a live process in KiB (`VmHWM`), or NaN when unknown. */
export function peakRssKiB(pid: number): number {
  return rssKiB(pid, "VmHWM");
}

/** A server started by {@linkcode startServer}. */
export interface Server {
  readonly pid: number;
  /** Peak resident memory so far, KiB. */
  peakRssKiB(): number;
  /** SIGTERM, then waits; resolves to the exit code and what it wrote to stderr. */
  stop(): Promise<{ code: number; stderr: string }>;
}

/** Starts `argv` in `cwd` and waits until it listens on `port`. */
export async function startServer(
  argv: string[],
  options: { cwd: string; port: number },
): Promise<Server> {
  const [cmd, ...args] = argv;
  const child = new Deno.Command(cmd!, {
    args,
    cwd: options.cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  try {
    await waitForPort(options.port, child);
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
    throw new Error(`${argv.join(" ")}: ${(error as Error).message}\n${await stderr}`);
  }
  return {
    pid: child.pid,
    peakRssKiB: () => peakRssKiB(child.pid),
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const { code } = await child.status;
      clearTimeout(timer);
      return { code, stderr: await stderr };
    },
  };
}

/** A process started by {@linkcode spawnUntil}, and what matched on its stderr. */
export interface Spawned {
  child: Deno.ChildProcess;
  match: RegExpMatchArray;
}

/**
 * Starts `deno <args>` in `cwd` (stdin and stdout closed, `NO_COLOR=1`) and
 * waits until its stderr matches `pattern` (a server's "listening on" line);
 * the rest of stderr is drained so the pipe never fills.
 * @throws when the process ends its stderr before the pattern appears.
 */
export async function spawnUntil(args: string[], cwd: string, pattern: RegExp): Promise<Spawned> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let match: RegExpMatchArray | null = null;
  while (match === null) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`deno ${args.join(" ")} did not start:\n${text}`);
    text += value;
    match = text.match(pattern);
  }
  void (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return { child, match };
}
