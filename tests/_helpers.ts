/**
 * Test helpers: temp directories and the real CLI as a subprocess.
 * @module
 */
import { fileURLToPath as fromFileUrl } from "node:url";
import { join } from "node:path";

/** Absolute path of hooktap's `main.ts`. */
export const MAIN = fromFileUrl(new URL("../main.ts", import.meta.url));
/** Absolute path of the repo's deno.json. */
export const DENO_JSON = fromFileUrl(new URL("../deno.json", import.meta.url));

/** The least-privilege flags the README documents for every command. */
export const LEAST_PRIVILEGE = ["--allow-net", "--allow-read=.", "--allow-write=.hooktap"];

/** A temp directory removed when disposed: `await using tmp = await withTmpDir()`. */
export async function withTmpDir(prefix = "hooktap_test_"): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** Writes a file under `dir` (creating parents). */
export async function writeFile(dir: string, name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await Deno.mkdir(join(file, ".."), { recursive: true });
  await Deno.writeTextFile(file, text);
  return file;
}

/**
 * Variables a subprocess needs to reach the network the way this machine does: a TLS-inspecting proxy's CA
 * (Deno honours `NODE_EXTRA_CA_CERTS`, `DENO_CERT`, `SSL_CERT_FILE`), the proxy itself, and npm's settings.
 */
const NETWORK_ENV =
  /^(NODE_EXTRA_CA_CERTS|DENO_CERT|SSL_CERT_FILE|SSL_CERT_DIR|DENO_DIR|HTTPS?_PROXY|NO_PROXY|ALL_PROXY|npm_config_.*)$/i;

/**
 * A clean environment for a subprocess started with `clearEnv: true`: `env`, plus this process's variables
 * that make the network work (CA certificates, proxies, `npm_config_*`, the Deno cache). Every test that
 * clears the environment builds it with this (tests/env_test.ts checks the sources).
 *
 * @example
 * ```ts
 * new Deno.Command("hooktap", { clearEnv: true, env: cleanEnv({ PATH: "/usr/bin" }) });
 * ```
 */
export function cleanEnv(
  env: Record<string, string> = {},
  from: Record<string, string> = Deno.env.toObject(),
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (NETWORK_ENV.test(name)) kept[name] = value;
  }
  return { ...kept, ...env };
}

/** Options of {@linkcode runCli}. */
export interface RunOptions {
  cwd: string;
  /** Deno permission flags. @default LEAST_PRIVILEGE */
  permissions?: string[];
  /** Bytes for stdin. @default none (stdin is closed / null) */
  stdin?: Uint8Array | string;
  /** Extra environment. */
  env?: Record<string, string>;
  /** Kill it (SIGKILL) after this many ms; the result then says `timedOut`. @default no limit */
  timeoutMs?: number;
}

/** Result of one CLI run. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  stdoutBytes: Uint8Array;
  /** It was killed after `timeoutMs`. */
  timedOut?: boolean;
}

/**
 * Read access to hooktap's own modules, which it imports as a command needs them (src/cli/lazy.ts): a run
 * from another directory under `--allow-read=.` needs it, as `deno task install` and the npm launcher give it.
 */
export const CODE_READ = `--allow-read=${fromFileUrl(new URL("../src", import.meta.url))}`;

/** `permissions` with {@linkcode CODE_READ}, unless they already read everything (Deno refuses -A with it). */
export function withCodeRead(permissions: readonly string[]): string[] {
  const all = permissions.some((p) => p === "-A" || p === "--allow-all" || p === "--allow-read");
  return all ? [...permissions] : [CODE_READ, ...permissions];
}

/** `deno run` arguments that run `hooktap ...args` with `permissions` (and {@linkcode CODE_READ}), never prompting. */
export function cliArgs(permissions: string[], args: string[]): string[] {
  return [
    "run",
    "--quiet",
    "--no-prompt",
    `--config=${DENO_JSON}`,
    "--unstable-no-legacy-abort", // as every launcher runs dev (tests/dev_flags_test.ts)
    ...withCodeRead(permissions),
    MAIN,
    ...args,
  ];
}

/** Runs `hooktap ...args` to completion in `options.cwd`. */
export async function runCli(args: string[], options: RunOptions): Promise<RunResult> {
  const command = new Deno.Command(Deno.execPath(), {
    args: cliArgs(options.permissions ?? LEAST_PRIVILEGE, args),
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  });
  const child = command.spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(
      typeof options.stdin === "string" ? new TextEncoder().encode(options.stdin) : options.stdin,
    );
    await writer.close();
  }
  let timedOut = false;
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, options.timeoutMs);
  const { code, stdout, stderr } = await child.output().finally(() => clearTimeout(timer));
  const dec = new TextDecoder();
  return {
    code,
    stdout: dec.decode(stdout),
    stderr: dec.decode(stderr),
    stdoutBytes: stdout,
    ...(timedOut ? { timedOut } : {}),
  };
}

/** A running `hooktap dev` subprocess. */
export interface DevProcess extends AsyncDisposable {
  /** The port it listens on. */
  port: number;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  child: Deno.ChildProcess;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  /** Everything it printed on stdout so far. */
  stdout(): string;
  /** Sends a signal and waits for the exit; resolves to the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
}

async function collect(stream: ReadableStream<Uint8Array>, sink: { text: string }): Promise<void> {
  const dec = new TextDecoder();
  for await (const chunk of stream) sink.text += dec.decode(chunk, { stream: true });
}

/**
 * Starts `hooktap dev --port 0 ...args` (without `--port 0` when `configPort`) in `cwd` and waits for its
 * banner.
 * @throws when it exits or prints no banner within 20 s.
 */
export async function startDev(
  cwd: string,
  args: string[] = [],
  options: {
    permissions?: string[];
    env?: Record<string, string>;
    /** A command that runs deno, like `["prlimit", "--nofile=256"]`. */
    wrap?: string[];
    /** Leave out `--port 0`: dev listens on the config's port. */
    configPort?: boolean;
  } = {},
): Promise<DevProcess> {
  const portFlag = options.configPort ? [] : ["--port", "0"];
  const denoArgs = cliArgs(options.permissions ?? LEAST_PRIVILEGE, ["dev", ...portFlag, ...args]);
  const [program, ...prefix] = options.wrap ?? [Deno.execPath()];
  const child = new Deno.Command(program!, {
    args: options.wrap === undefined ? denoArgs : [...prefix, Deno.execPath(), ...denoArgs],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  }).spawn();
  const err = { text: "" };
  const out = { text: "" };
  const pumps = Promise.all([collect(child.stderr, err), collect(child.stdout, out)]);
  let exited: Deno.CommandStatus | undefined;
  const status = child.status.then((s) => (exited = s));
  const deadline = Date.now() + 20_000;
  let port = 0;
  while (port === 0) {
    const m = err.text.match(/listening on http:\/\/[^:]+:(\d+)/);
    if (m) port = Number(m[1]);
    else if (exited !== undefined || Date.now() > deadline) {
      if (exited === undefined) child.kill("SIGKILL");
      await status;
      await pumps;
      throw new Error(`hooktap dev did not start (exit ${exited?.code}):\n${err.text}\n${out.text}`);
    } else await new Promise((r) => setTimeout(r, 20));
  }
  const stop = async (signal: Deno.Signal = "SIGINT") => {
    if (exited === undefined) {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    }
    const s = await status;
    await pumps;
    return s.code;
  };
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    stderr: () => err.text,
    stdout: () => out.text,
    stop,
    async [Symbol.asyncDispose]() {
      await stop("SIGKILL");
    },
  };
}

/** Reads `.hooktap/events.jsonl` under `dir` as parsed records. */
export async function readEvents(dir: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(dir, ".hooktap", "events.jsonl"));
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

/** sha256 of bytes, hex. */
export async function sha256(bytes: Uint8Array | ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The flags `deno task dev` runs `dev` with (deno.json's dev task: its permissions and V8 flags), for tests
 * that measure dev as users run it.
 */
export function devTaskFlags(): string[] {
  const deno = JSON.parse(Deno.readTextFileSync(new URL("../deno.json", import.meta.url)));
  const words: string[] = deno.tasks.dev.command.split(/\s+/);
  return words.slice(words.indexOf("run") + 1, words.findIndex((w) => w.endsWith("main.ts")));
}

/** The records of `dir`'s `.hooktap/deliveries.jsonl`, parsed as they are (`[]` when there is no log yet). */
export async function deliveries(dir: string): Promise<Record<string, unknown>[]> {
  try {
    const text = await Deno.readTextFile(join(dir, ".hooktap", "deliveries.jsonl"));
    return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

/** A config with one endpoint, `POST /gh` named `gh`, forwarding to `/hook` of the app on `appPort`; no inspector. */
export function writeForwardingConfig(dir: string, appPort: number): Promise<string> {
  return writeFile(
    dir,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", ` +
      `forward: "http://127.0.0.1:${appPort}/hook" }] };\n`,
  );
}

/** The path of program `name` on the PATH (`command -v`), or `undefined` when there is none. */
export async function which(name: string): Promise<string | undefined> {
  const out = await new Deno.Command("sh", { args: ["-c", `command -v ${name}`], stdout: "piped" }).output()
    .catch(() => undefined);
  const path = out?.success ? new TextDecoder().decode(out.stdout).trim() : "";
  return path === "" ? undefined : path;
}
