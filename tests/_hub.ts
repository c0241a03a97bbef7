/**
 * Test helpers for the hub: `hooktap hub serve` as a subprocess on a KV
 * file in a temp directory, and channel creation through the real CLI.
 * @module
 */
import { cliArgs, runCli } from "./_helpers.ts";

/** A running `hooktap hub serve`. */
export interface HubProcess extends AsyncDisposable {
  url: string;
  port: number;
  stop(signal?: Deno.Signal): Promise<void>;
  /** What it printed on stderr (up to its start, then as it runs). */
  stderr(): string;
  /** Its exit status, once it has exited. */
  status: Promise<Deno.CommandStatus>;
}

/** Options of {@linkcode startHub}. */
export interface StartHubOptions {
  /** A command the hub runs under (`["prlimit", "--nofile=256", "--"]`). */
  wrap?: string[];
  /** Leave out `--port` (the default port). */
  defaultPort?: boolean;
  /** Leave out `--kv` (the default KV file, under the directory). */
  defaultKv?: boolean;
}

/**
 * Starts `hooktap hub serve --kv <dir>/hub.sqlite` with the admin token `admin` in HOOKTAP_HUB_ADMIN_TOKEN,
 * on `port` (0: any), with `extra` flags.
 */
export async function startHub(
  dir: string,
  port = 0,
  extra: string[] = [],
  options: StartHubOptions = {},
): Promise<HubProcess> {
  const wrap = options.wrap ?? [];
  const where = [
    ...(options.defaultPort ? [] : ["--port", String(port)]),
    ...(options.defaultKv ? [] : ["--kv", `${dir}/hub.sqlite`]),
  ];
  const child = new Deno.Command(wrap[0] ?? Deno.execPath(), {
    args: [
      ...wrap.slice(1),
      ...(wrap.length > 0 ? [Deno.execPath()] : []),
      ...cliArgs(["-A"], [
        "hub",
        "serve",
        ...where,
        ...extra,
      ]),
    ],
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1", HOOKTAP_HUB_ADMIN_TOKEN: "admin" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let match: RegExpMatchArray | null = null;
  while (match === null) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`hub did not start:\n${text}`);
    text += value;
    match = text.match(/listening on (http:\/\/127\.0\.0\.1:(\d+))/);
  }
  const drain = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += value;
    }
  })();
  let stopped = false;
  const stop = async (signal: Deno.Signal = "SIGTERM") => {
    if (!stopped) {
      stopped = true;
      try {
        child.kill(signal);
      } catch { /* gone */ }
    }
    await child.status;
    await drain;
  };
  return {
    url: match[1]!,
    port: Number(match[2]),
    stop,
    stderr: () => text,
    status: child.status,
    [Symbol.asyncDispose]: () => stop("SIGKILL"),
  };
}

/** Creates a channel through `hooktap hub channel create --json` (the admin token in the environment). */
export async function createChannel(dir: string, hub: string): Promise<{ url: string; token: string }> {
  const r = await runCli(["hub", "channel", "create", "--hub", hub, "--json"], {
    cwd: dir,
    permissions: ["--allow-net", "--allow-env"],
    env: { HOOKTAP_HUB_ADMIN_TOKEN: "admin" },
  });
  if (r.code !== 0) throw new Error(`channel create failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** POSTs `body` to `url`; resolves to the status (the body read). */
export async function send(url: string, body: BodyInit, headers: HeadersInit = {}): Promise<number> {
  const r = await fetch(url, { method: "POST", body, headers });
  try {
    await r.arrayBuffer();
  } catch (error) {
    // A refusal given before the body's end closes its connection without the last chunk (src/receiver/
    // closing.ts): the status and text came, the body then breaks off (fetch hides the connection header).
    // Only a refusal may.
    if (r.status < 400) throw error;
  }
  return r.status;
}

/** The hub sequence numbers in `.hooktap/events.jsonl` under `dir`, in file order. */
export async function hubSeqs(dir: string): Promise<number[]> {
  let text = "";
  try {
    text = await Deno.readTextFile(`${dir}/.hooktap/events.jsonl`);
  } catch {
    return [];
  }
  return text.split("\n").filter((l) => l.endsWith("}")).map((l) => JSON.parse(l).hub?.seq).filter((s) =>
    s !== undefined
  );
}
