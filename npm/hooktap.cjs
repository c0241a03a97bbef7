#!/usr/bin/env node
// hooktap's npm launcher (bin `hooktap`): runs the bundled CLI (../lib/main.js, or a bundle of its own for
// the help and the commands run most: ENTRIES) on the Deno binary of the exact `deno` npm package hooktap
// depends on. Kept to Node built-ins and one file, so it adds little more than Node's own start-up. It
// resolves the binary from the platform package itself (`deno`'s postinstall copy is skipped under
// --ignore-scripts and pnpm), runs Deno as a child, forwards SIGINT, SIGTERM and SIGHUP, and exits with the
// child's code or dies of its signal.
//
// It is the slow way (Node, then Deno): where npm runs hooktap's postinstall on Linux or macOS,
// npm/postinstall.cjs writes a shell launcher over this file that execs Deno directly, built from the
// tables below (docs/install.md). This file is kept beside it as bin/launcher.cjs.
"use strict";
const { spawn } = require("node:child_process");
const { existsSync, realpathSync } = require("node:fs");
const os = require("node:os");
const { createRequire } = require("node:module");
const path = require("node:path");

const LIB = path.join(__dirname, "..", "lib");

/** Deno's permission flags per command: `dev` gets those of `deno task dev`, the rest only what they need. */
const READ = ["--allow-read=."];
/**
 * The flags of the help, the version and an unknown command: read, and the one variable that says how the
 * user runs hooktap (the help's examples and its hints start with `npx hooktap` under npx).
 */
const OTHER = [...READ, "--allow-env=HOOKTAP_INVOKED_AS"];
const STORE = ["--allow-write=.hooktap"];
const PERMISSIONS = {
  // dev reads the host name for its hub client name (<host>-<project directory>).
  // --unstable-no-legacy-abort: a relay tells a sender that left from one that got its answer by
  // request.signal, which under Deno's legacy abort prints a warning (src/receiver/handler.ts).
  dev: [
    "--allow-net",
    ...READ,
    "--allow-env",
    "--allow-sys=hostname",
    "--v8-flags=--max-semi-space-size=8",
    "--unstable-no-legacy-abort",
  ],
  init: [...READ, "--allow-env"],
  logs: [...READ, ...STORE, "--allow-env"],
  inspect: [...READ, ...STORE, "--allow-env"],
  export: [...READ, ...STORE, "--allow-env"],
  // prune and rm reach a running dev over .hooktap/control.sock: CONTROL_SOCKET below.
  prune: [...READ, ...STORE, "--allow-env"],
  rm: [...READ, ...STORE, "--allow-env"],
  replay: ["--allow-net", ...READ, ...STORE, "--allow-env"],
  doctor: ["--allow-net", ...READ, ...STORE, "--allow-env"],
  ui: ["--allow-net", ...READ, ...STORE, "--allow-env", "--allow-run=xdg-open,open,cmd"],
  trigger: ["--allow-net", ...READ, ...STORE, "--allow-env"],
  // The MCP server sends (trigger, replay) and reads and writes the store.
  mcp: ["--allow-net", ...READ, ...STORE, "--allow-env"],
  // `hub serve` keeps its events on Deno KV (unstable in Deno 2), in .hooktap-hub/ unless --kv names a file.
  hub: ["--unstable-kv", "--allow-net", ...READ, "--allow-write=.hooktap-hub", "--allow-env"],
  completions: [...READ],
  complete: [...READ, "--allow-env"],
};
/** Files a command writes besides what PERMISSIONS says: dev's first-run setup and init write the config. */
const WRITES = { dev: [".hooktap", "hooktap.config.ts"], init: ["hooktap.config.ts"] };
/**
 * Options whose values widen a command's permissions: [commands ("*": every command of PERMISSIONS), long
 * name, short letter or null, what the value gets: "read", "write", or "dir" (read and write on the file's
 * directory: Deno KV writes the file and its -wal and -shm beside it)].
 */
const WIDENINGS = [
  ["*", "config", "c", "read"],
  ["dev,init", "config", "c", "write"],
  ["dev", "ready-file", null, "write"],
  ["export", "output", "o", "write"],
  ["replay,trigger", "body-file", null, "read"],
  ["hub", "cert", null, "read"],
  ["hub", "key", null, "read"],
  ["hub", "kv", null, "dir"],
];
/**
 * Commands that connect to a running dev's control socket without the whole network: Deno 2.9 asks for
 * net access to `unix:<absolute path>` (and read and write on it, which `.` and `.hooktap` give).
 */
const CONTROL_SOCKET = ["prune", "rm"];
const CONTROL_SOCKET_PATH = ".hooktap/control.sock";

/**
 * Single-file bundles (scripts/pack.ts), by the first argument: the help and the commands run most
 * (`logs`, `trigger`, `inspect`, `replay`, `export`, and `complete`, at every TAB) start from one file that
 * carries every module they load, lazily loaded ones included, but the providers' catalogs (`trigger`
 * reads the one provider's catalog and the one sample it sends). `trigger`'s is lean: it starts with what
 * one `trigger <provider> <event> --to URL --secret S` runs and loads the rest (config, each provider's
 * signer, fixture, key pairs, list) from files of its own build when a run needs them. The other commands
 * (`dev`, `doctor`, ...) load lib/main.js, its shared chunks and their own modules; so does a first
 * argument that is an option (`hooktap -c x.ts logs`). `complete` got its bundle when lib/main.js began to
 * import the command tree's 15 declarations as files of their own (it was 1.06× the package before; 0.90×
 * with its bundle, 30 pairs each); `doctor` waits on the network (its probes), not on start-up.
 */
const ENTRIES = {
  logs: "main_logs.js",
  trigger: "main_trigger.js",
  inspect: "main_inspect.js",
  replay: "main_replay.js",
  export: "main_export.js",
  complete: "main_complete.js",
  "": "main_help.js",
  "-h": "main_help.js",
  "--help": "main_help.js",
  help: "main_help.js",
  "-V": "main_help.js",
  "--version": "main_help.js",
};

/**
 * Deno flags of a bundle of ENTRIES. `logs`, `trigger` and `inspect` run most of their bundle's functions:
 * V8 compiles them all at once (--no-lazy) and Deno's code cache keeps them, where by default each one is
 * compiled again at its first call in every run (one `trigger` ~1.5 ms less, one `inspect` ~2.5 ms: 100
 * pairs; the lean `trigger` bundle measured 1.15× slower without it, 50 pairs). The help runs few of its functions and measured no faster with it; `replay` is not measured
 * (each file measured with its own code cache: the cache V8 keeps for a file under one set of flags is
 * refused under another, so alternating both on one file compiles every run).
 */
const ENTRY_FLAGS = {
  "main_logs.js": ["--v8-flags=--no-lazy"],
  "main_trigger.js": ["--v8-flags=--no-lazy"],
  "main_inspect.js": ["--v8-flags=--no-lazy"],
};

/** The script in lib/ that runs `args`: its first word's bundle of ENTRIES, else main.js. */
function scriptOf(args) {
  return Object.hasOwn(ENTRIES, args[0] ?? "") ? ENTRIES[args[0] ?? ""] : "main.js";
}

/** The first word that is not an option: the command. */
function commandOf(args) {
  for (const word of args) {
    if (word === "--") return undefined;
    if (!word.startsWith("-")) return word;
  }
  return undefined;
}

/** Values of `--name VALUE`, `--name=VALUE`, `-s VALUE`, `-sVALUE`. */
function optionValues(args, long, short) {
  const values = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === "--") break;
    if (word === `--${long}` || (short && word === `-${short}`)) {
      if (i + 1 < args.length) values.push(args[++i]);
    } else if (word.startsWith(`--${long}=`)) values.push(word.slice(long.length + 3));
    else if (short && word.startsWith(`-${short}`) && !word.startsWith("--")) values.push(word.slice(2));
  }
  return values.filter((v) => v !== "");
}

/** Whether a WIDENINGS row applies to `command`. */
function widens(commands, command) {
  return commands === "*" || commands.split(",").includes(command);
}

/** Deno's flags for `args` run in `cwd`: the command's permissions, widened to the files its options name. */
function permissionFlags(args, cwd = process.cwd()) {
  const command = commandOf(args);
  const flags = [...(PERMISSIONS[command] ?? OTHER)];
  if (command === undefined || !(command in PERMISSIONS)) return flags;
  const reads = [];
  const writes = [...(WRITES[command] ?? [])];
  for (const [commands, long, short, kind] of WIDENINGS) {
    if (!widens(commands, command)) continue;
    for (const value of optionValues(args, long, short)) {
      if (kind !== "write") reads.push(kind === "dir" ? path.dirname(value) : value);
      if (kind !== "read") writes.push(kind === "dir" ? path.dirname(value) : value);
    }
  }
  const add = (name, list) => {
    if (list.length === 0) return;
    const at = flags.findIndex((f) => f.startsWith(`--allow-${name}=`));
    if (at === -1) flags.push(`--allow-${name}=${list.join(",")}`);
    else flags[at] += `,${list.join(",")}`;
  };
  add("read", reads);
  add("write", writes);
  if (CONTROL_SOCKET.includes(command)) flags.push(`--allow-net=unix:${path.join(cwd, CONTROL_SOCKET_PATH)}`);
  return flags;
}

/** The bin's file names on the PATH (Windows: npm's shims). */
const BIN_NAMES = process.platform === "win32" ? ["hooktap.cmd", "hooktap.ps1", "hooktap"] : ["hooktap"];

/** The first directory of `PATH` that holds a `hooktap` bin, or undefined. */
function firstOnPath(env) {
  for (const dir of (env.PATH ?? env.Path ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    if (BIN_NAMES.some((name) => existsSync(path.join(dir, name)))) return path.resolve(dir);
  }
  return undefined;
}

/**
 * How the user runs hooktap, for the commands it suggests (HOOKTAP_INVOKED_AS; src/text/command_line.ts):
 * - `npx hooktap` under `npx` / `npm exec` and in an npm (yarn, pnpm) script, where npm sets
 *   npm_lifecycle_event (`npx`, or the script's name): the script's own line is not a command to paste, and
 *   npx finds the project's bin;
 * - `hooktap` when the bin that ran (`argv1`) is the first `hooktap` on the PATH (a global install);
 * - else the bin's path: `./node_modules/.bin/hooktap` under the working directory, else absolute;
 * - when `argv1` is not a bin named hooktap (Windows runs this file through a shim): `npx hooktap` for a
 *   copy in a node_modules under the working directory, else `hooktap`.
 */
function invokedAs(env = process.env, argv1 = process.argv[1], cwd = process.cwd()) {
  if (env.npm_command === "exec" || (env.npm_lifecycle_event ?? "") !== "") return "npx hooktap";
  if (typeof argv1 !== "string" || argv1 === "") return "hooktap";
  const file = path.resolve(cwd, argv1);
  const inCwd = (p) => {
    const rel = path.relative(cwd, p);
    return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : undefined;
  };
  if (path.basename(file).replace(/\.(cmd|ps1)$/, "") !== "hooktap") {
    return inCwd(file)?.split(path.sep).includes("node_modules") ? "npx hooktap" : "hooktap";
  }
  if (firstOnPath(env) === path.dirname(file)) return "hooktap";
  const rel = inCwd(file);
  return rel === undefined ? file : `.${path.sep}${rel}`;
}

/** The arguments of `deno` that run the bundled CLI in `lib` with `args` in `cwd`. */
function denoArgs(lib, args, cwd = process.cwd()) {
  return [
    "run",
    "--quiet",
    "--no-config",
    "--no-lock",
    "--no-prompt",
    "--no-remote",
    // A config imports what the project's own modules import: packages from the project's node_modules
    // (found as Node finds them; never downloaded: `manual`), and CommonJS `.js` files where the nearest
    // package.json says "type": "commonjs" (npm init's default), which --no-config alone would load as ESM.
    "--node-modules-dir=manual",
    "--unstable-detect-cjs",
    // A config's `import { defineConfig } from "hooktap"` gets this package's own copy.
    `--import-map=${path.join(lib, "import_map.json")}`,
    // hooktap's own modules, each imported when a command needs it (src/cli/lazy.ts), are read at run time.
    `--allow-read=${lib}`,
    ...permissionFlags(args, cwd),
    ...(ENTRY_FLAGS[scriptOf(args)] ?? []),
    path.join(lib, scriptOf(args)),
    ...args,
  ];
}

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

/** `@deno/<target>` for this machine, or a reason there is none. */
function platformTarget() {
  const { platform, arch } = process;
  if (arch !== "x64" && arch !== "arm64") return { why: `no Deno build exists for the ${arch} architecture` };
  if (platform === "darwin" || platform === "win32") return { target: `${platform}-${arch}` };
  if (platform !== "linux") return { why: `no Deno build exists for ${platform}` };
  return { target: `linux-${arch}-glibc` };
}

function isMusl() {
  try {
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

/** Path of the Deno binary the `deno` package installed for this platform. */
function denoBinary() {
  const exe = process.platform === "win32" ? "deno.exe" : "deno";
  let denoPackage;
  try {
    denoPackage = require.resolve("deno/package.json");
  } catch {
    fail("the npm package `deno` that hooktap runs on is missing. Reinstall hooktap (npm install hooktap).");
  }
  const { target, why } = platformTarget();
  if (target !== undefined) {
    try {
      const dir = path.dirname(createRequire(denoPackage).resolve(`@deno/${target}/package.json`));
      if (existsSync(path.join(dir, exe))) return path.join(dir, exe);
    } catch { /* not installed: the postinstall copy, or the message below */ }
  }
  const copy = path.join(path.dirname(denoPackage), exe);
  if (existsSync(copy)) return copy;
  if (process.platform === "linux" && isMusl()) {
    fail(
      "hooktap's npm package runs on Deno's npm binaries, which need glibc; this system uses musl (Alpine?). " +
        "Install Deno another way (https://docs.deno.com/runtime/getting_started/installation/) and then " +
        "hooktap with `deno task install` from a clone (see docs/install.md).",
    );
  }
  fail(
    `${
      why ?? `the Deno binary package @deno/${target} is not installed`
    }. hooktap's npm package runs where the ` +
      "npm package `deno` ships a binary: Linux (glibc) and macOS on x64 and arm64, Windows x64 and arm64. " +
      "If you installed with --no-optional or --omit=optional, reinstall without it.",
  );
}

/**
 * Commands that start a project where they run (dev's first-run setup and init write its config there):
 * in a subdirectory of a Node project whose root holds a config, they would start a second one.
 */
const PROJECT_ROOT_COMMANDS = ["dev", "init"];

/**
 * The directory above `cwd` whose hooktap.config.ts `args` would miss: for dev and init without --config or
 * --help, in a directory with no hooktap.config.ts, .hooktap/ or package.json, the nearest directory above
 * that holds a package.json, when it holds a hooktap.config.ts too (a Node project's root; the walk stops at
 * the first package.json, so a workspace's package is its own project, and at the home folder `home`). Else
 * undefined.
 */
function configAbove(args, cwd = process.cwd(), home = realHome()) {
  const words = args.indexOf("--") === -1 ? args : args.slice(0, args.indexOf("--"));
  if (!PROJECT_ROOT_COMMANDS.includes(commandOf(args) ?? "")) return undefined;
  if (words.some((w) => w === "-h" || w === "--help") || optionValues(args, "config", "c").length > 0) {
    return undefined;
  }
  const has = (dir, name) => existsSync(path.join(dir, name));
  if (has(cwd, "hooktap.config.ts") || has(cwd, ".hooktap") || has(cwd, "package.json")) return undefined;
  for (let dir = cwd; path.dirname(dir) !== dir;) {
    dir = path.dirname(dir);
    // The home folder is no project: a stray ~/package.json and ~/hooktap.config.ts must not claim every
    // folder under it (a Go or Python project run with a global install).
    if (dir === home) return undefined;
    if (has(dir, "package.json")) return has(dir, "hooktap.config.ts") ? dir : undefined;
  }
  return undefined;
}

/** The home folder with its links resolved (as `cwd` is), or `undefined`. */
function realHome() {
  try {
    return realpathSync(os.homedir());
  } catch {
    return undefined;
  }
}

/**
 * Why `line` (`dev --port 0`, run as `as`, both shell words) is refused in a subdirectory of the project
 * `above` (`cdTo`: that path as a shell word), and the commands that run it. The shell launcher builds the
 * same text with its variables for the arguments.
 */
function aboveMessage(above, command, as, line, cdTo = shellQuote(above)) {
  const why =
    `there is no hooktap.config.ts here, but this directory is inside the project ${above}, which ` +
    `has one: ${command} here would start a second project (its own config and .hooktap/).`;
  return command === "init"
    ? `${why} To write a second config here anyway: ${as} ${line} --config hooktap.config.ts`
    : `${why} Run it in the project: cd ${cdTo} && ${as} ${line}. To start a second one here anyway, ` +
      `write its config first: ${as} init --config hooktap.config.ts`;
}

/**
 * `word` quoted for a POSIX shell when it needs it (as src/text/command_line.ts's shellQuote); on Windows in
 * double quotes when it holds a space.
 */
function shellQuote(word) {
  if (process.platform === "win32") return /\s/.test(word) ? `"${word}"` : word;
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The refusal of `args` (run as `as`, from invokedAs()) in a subdirectory of `above`: its commands quoted. */
function aboveError(above, args, as) {
  // A runner's words (`npx hooktap`) as they are; a path to the bin (`/home/me/my app/.../hooktap`) quoted.
  const runner = /[/\\]/.test(as) ? shellQuote(as) : as;
  return aboveMessage(above, commandOf(args), runner, args.map(shellQuote).join(" "));
}

/** Runs the CLI on Deno with `args` and exits as it does. */
function launch(args) {
  const above = configAbove(args);
  if (above !== undefined) fail(aboveError(above, args, invokedAs()));
  const child = spawn(denoBinary(), denoArgs(LIB, args), {
    stdio: "inherit",
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", HOOKTAP_INVOKED_AS: invokedAs() },
  });
  // A terminal's Ctrl-C reaches the child from the terminal itself, and a SIGINT sent to this process alone
  // (a process manager) must reach it too: the launcher forwards it, and hooktap takes two SIGINTs that
  // arrive together as one (main.ts).
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    });
  }
  child.on("error", (error) => fail(`cannot start Deno: ${error.message}`));
  child.on("exit", (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

// Run as the `hooktap` bin; required (by the postinstall, the shell launcher's Node fallback and hooktap's
// tests), it exposes its tables and functions.
if (require.main === module) launch(process.argv.slice(2));
else {
  module.exports = {
    PERMISSIONS,
    WRITES,
    WIDENINGS,
    CONTROL_SOCKET,
    CONTROL_SOCKET_PATH,
    READ,
    OTHER,
    ENTRIES,
    ENTRY_FLAGS,
    scriptOf,
    permissionFlags,
    denoArgs,
    denoBinary,
    invokedAs,
    PROJECT_ROOT_COMMANDS,
    configAbove,
    aboveMessage,
    aboveError,
    launch,
  };
}
