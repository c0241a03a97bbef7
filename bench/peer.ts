/**
 * The Node/Express peer (issue 29): `cmer/localhook`, a webhook catcher on
 * Express that is not on npm, run from a checkout the user gives
 * (`BENCH_PEER_DIR=/path/to/localhook` or `--peer-dir`). Without one, the
 * bench says {@linkcode PEER_SKIPPED} and runs as before, so nothing at
 * bench time needs GitHub.
 *
 * Setup: `npm ci --ignore-scripts` in the checkout when it has no
 * `node_modules/`: it installs exactly what localhook's package-lock.json pins
 * (Express 4.22.1 at df2db3c) and, unlike `npm install`, never rewrites that
 * file (npm 11's `npm install` dropped its `resolved` URLs, which left the
 * checkout dirty); then a copy of what
 * its package publishes (`cli.js`, `lib/`, `public/`, `package.json`) goes
 * into the scratch directory with ONE line changed: localhook calls
 * `app.listen(port, cb)`, which binds every interface (`*:PORT`, IPv6 and
 * IPv4), and has no option or variable for the address, so the copy says
 * `app.listen(port, '127.0.0.1', cb)`. After it starts, the bench reads
 * `/proc/net/tcp{,6}` and refuses to load it unless its only listener is
 * 127.0.0.1. It runs as `node cli.js --port P --data-file DIR/data.json`
 * (the data file so it never touches `~/.localhook/`), pinned to CPU 0,
 * its stdout (one line per request, its terminal log) to a file.
 *
 * What it does per request (lib/server.js): reads the body into a UTF-8
 * string (bytes that are not UTF-8 become U+FFFD), keeps Node's header object
 * (names lower-cased, repeated headers joined with ", "), prints a log line,
 * puts the webhook at the head of an in-memory list of the newest 500,
 * answers 200 `{"ok":true,"id":…}`, and (re)starts a 300 ms timer that writes
 * the whole list to the data file with `writeFileSync`: never fsync, and under
 * steady load the timer is pushed back by every request, so nothing reaches
 * the file until the load pauses. The checks below count what it stored.
 * @module
 */
import { cpSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { BODY, githubHeaders } from "./payload.ts";
import { hasCommand } from "./proc.ts";
import type { WriteConfig } from "./write_side.ts";

/** The peer's row in every table. */
export const PEER_LABEL = "(p) Node/Express peer (cmer/localhook)";
/** What the bench prints when no peer checkout is given. */
export const PEER_SKIPPED = "peer: skipped (set BENCH_PEER_DIR)";
/** How many webhooks localhook keeps (its MAX_WEBHOOKS). */
const KEEPS = 500;

/** The line of localhook's lib/server.js that binds every interface, and what the copy says instead. */
export const LISTEN_ANY = "app.listen(port, async () => {";
export const LISTEN_LOOPBACK = "app.listen(port, '127.0.0.1', async () => {";

/**
 * `source` (localhook's lib/server.js) with its one `app.listen(port, …)`
 * bound to 127.0.0.1.
 * @throws when that line is missing or there is more than one (another version of localhook).
 */
export function bindLoopback(source: string): string {
  const at = source.indexOf(LISTEN_ANY);
  if (at === -1 || source.indexOf(LISTEN_ANY, at + 1) !== -1) {
    throw new Error(
      `lib/server.js of the peer does not have exactly one \`${LISTEN_ANY}\`, so the bench cannot bind it ` +
        `to 127.0.0.1: check out the localhook commit BENCHMARKS.md names, or update bench/peer.ts`,
    );
  }
  return source.slice(0, at) + LISTEN_LOOPBACK + source.slice(at + LISTEN_ANY.length);
}

/** The peer, ready to run. */
export interface Peer {
  /** The user's checkout. */
  dir: string;
  /** `git rev-parse HEAD` of the checkout (with "+ local changes" when dirty), or why unknown. */
  commit: string;
  /** localhook's and Express's versions, and Node's. */
  versions: string;
  /** How each run starts it, for the report. */
  command: string;
  /** The write-side configuration (p). */
  config: WriteConfig;
}

async function output(cmd: string, args: string[], cwd: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(cmd, { args, cwd, stdin: "null", stdout: "piped", stderr: "null" })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Installs the peer's dependencies if missing and makes the loopback copy
 * in `scratch`.
 * @throws with the fix when `dir` is not a localhook checkout, node or npm is missing, or npm fails.
 */
export async function preparePeer(dir: string, scratch: string, log: (line: string) => void): Promise<Peer> {
  if (!exists(join(dir, "cli.js")) || !exists(join(dir, "lib/server.js"))) {
    throw new Error(
      `BENCH_PEER_DIR=${dir} is not a checkout of cmer/localhook (no cli.js and lib/server.js): ` +
        `git clone https://github.com/cmer/localhook ${dir}`,
    );
  }
  for (const tool of ["node", "npm"]) {
    if (!hasCommand(tool)) throw new Error(`the peer needs ${tool} on PATH (Node.js 18 or later)`);
  }
  if (!exists(join(dir, "node_modules"))) {
    // Without a lock (another version of localhook) only `npm install` can resolve its dependencies.
    const verb = exists(join(dir, "package-lock.json")) ? "ci" : "install";
    log(`  peer: npm ${verb} --ignore-scripts in ${dir}`);
    const out = await new Deno.Command("npm", {
      args: [verb, "--ignore-scripts", "--no-audit", "--no-fund"],
      cwd: dir,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(
        `npm ${verb} --ignore-scripts in ${dir} failed (${out.code}):\n${
          new TextDecoder().decode(out.stderr)
        }`,
      );
    }
  }
  const head = await output("git", ["rev-parse", "HEAD"], dir);
  const dirty = head !== undefined && (await output("git", ["status", "--porcelain"], dir)) !== "";
  const commit = head === undefined
    ? "unknown (not a git checkout)"
    : `${head}${dirty ? " + local changes" : ""}`;
  const version = (file: string) => {
    try {
      return JSON.parse(Deno.readTextFileSync(join(dir, file))).version ?? "?";
    } catch {
      return "?";
    }
  };
  const node = await output("node", ["--version"], dir) ?? "?";
  const versions = `localhook ${version("package.json")}, Express ${
    version("node_modules/express/package.json")
  }, Node ${node}`;

  const copy = join(scratch, "peer-app");
  await Deno.remove(copy, { recursive: true }).catch(() => {});
  await Deno.mkdir(copy, { recursive: true });
  for (const part of ["cli.js", "package.json", "lib", "public"]) {
    if (exists(join(dir, part))) cpSync(join(dir, part), join(copy, part), { recursive: true });
  }
  const server = join(copy, "lib/server.js");
  await Deno.writeTextFile(server, bindLoopback(await Deno.readTextFile(server)));
  await Deno.symlink(realpathSync(join(dir, "node_modules")), join(copy, "node_modules"));

  const cli = join(copy, "cli.js");
  return {
    dir,
    commit,
    versions,
    command: "node cli.js --port PORT --data-file DIR/data.json (stdout to DIR/peer.log)",
    config: {
      key: "p",
      label: PEER_LABEL,
      // `sh` only redirects stdout to a file and execs node (same pid, same CPU).
      argv: (port, runDir) => [
        "sh",
        "-c",
        'exec "$@" >"$0"',
        join(runDir, "peer.log"),
        "node",
        cli,
        "--port",
        String(port),
        "--data-file",
        join(runDir, "data.json"),
      ],
      beforeStop: checkStored,
      verify: verifyLog,
    },
  };
}

/** Addresses (hex, as in /proc/net/tcp{,6}) listening on `port`. */
export function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const found: string[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = Deno.readTextFileSync(table);
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === "0A" && local?.endsWith(`:${hexPort}`)) found.push(local.slice(0, -5));
    }
  }
  return found;
}

/**
 * While the peer still runs, after the load: it listens on 127.0.0.1 only,
 * its API lists the newest webhooks it kept (as many as answered, up to 500)
 * with the body and GitHub's headers as sent, and its data file appears with
 * the same list once its 300 ms timer fires.
 */
async function checkStored(port: number, dir: string, requests: number): Promise<void> {
  const bound = listeners(port);
  if (bound.length !== 1 || bound[0] !== "0100007F") {
    throw new Error(`the peer listens on ${bound.join(", ")} (hex), not on 127.0.0.1 alone`);
  }
  const res = await fetch(`http://127.0.0.1:${port}/_/api/webhooks`);
  if (!res.ok) throw new Error(`the peer's /_/api/webhooks answered ${res.status}`);
  const kept = await res.json() as {
    id: string;
    method: string;
    path: string;
    body: string;
    headers: Record<string, string>;
  }[];
  if (kept.length < Math.min(KEEPS, requests)) {
    throw new Error(`the peer answered ${requests} requests but keeps ${kept.length} webhooks`);
  }
  const last = kept[0]!;
  if (last.method !== "POST" || last.path !== "/webhook" || last.body !== BODY) {
    throw new Error(`the newest webhook the peer kept is not the request sent`);
  }
  for (const [name, value] of await githubHeaders()) {
    if (last.headers[name.toLowerCase()] !== value) {
      throw new Error(`the peer kept ${name}: ${last.headers[name.toLowerCase()]}, not ${value}`);
    }
  }
  const file = join(dir, "data.json");
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      const saved = JSON.parse(await Deno.readTextFile(file)) as { id: string }[];
      if (saved.length === kept.length && saved[0]?.id === last.id) return;
    } catch {
      // not written yet, or being written
    }
    if (Date.now() > deadline) throw new Error(`the peer did not write its data file ${file} within 5 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** After it stopped: its log has a line for every request answered (each one it put in its list). */
async function verifyLog(dir: string, stderr: string, code: number, requests: number): Promise<void> {
  // SIGTERM: Node has no handler, so it ends by the signal (143) with nothing to flush.
  if (code !== 0 && code !== 143) throw new Error(`the peer exited ${code}:\n${stderr}`);
  const text = await Deno.readTextFile(join(dir, "peer.log"));
  let logged = 0;
  for (const line of text.split("\n")) if (line.includes("POST") && line.includes("/webhook")) logged++;
  if (logged < requests) {
    throw new Error(`the peer answered ${requests} requests but logged (and kept) ${logged}:\n${stderr}`);
  }
}

/** The peer's checkout from `--peer-dir`, else `BENCH_PEER_DIR`; undefined when neither is set. */
export function peerDir(flag: string | undefined): string | undefined {
  const dir = flag ?? Deno.env.get("BENCH_PEER_DIR");
  return dir === undefined || dir === "" ? undefined : dir;
}
