#!/usr/bin/env node
// hooktap's postinstall (npm runs it by default): on Linux and macOS, writes over bin/hooktap.cjs (the file
// package.json's "bin" names, which npm has linked as `hooktap`) a launcher that is both a POSIX shell
// script and a Node script. Run as the bin, /bin/sh execs the Deno binary of the `deno` package directly,
// with the command's permission flags: no Node process starts, and Deno is the command's own process
// (its pid gets the signals, its exit code is the command's). Run with `node` (a package manager's shim
// that calls the interpreter of the shebang it saw before this script ran), it is the Node launcher.
// The shell's permission table is generated here from the Node launcher's (bin/launcher.cjs), so the
// two never disagree. Nothing here may fail the install: on any problem the Node launcher stays.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const BIN = __dirname;
const LAUNCHER = path.join(BIN, "launcher.cjs");
const TARGET = path.join(BIN, "hooktap.cjs");

/** `'text'` for sh. */
function quote(text) {
  return `'${String(text).replaceAll("'", `'\\''`)}'`;
}

/** A shell variable name for an option's values. */
function variable(long) {
  return `o_${long.replaceAll("-", "_")}`;
}

/**
 * The POSIX shell launcher for the bundled CLI in `lib`, on the Deno binary `deno`, with the Node
 * launcher `launcher` (its module, `require`d) as the source of every table.
 */
function shellLauncher(launcher, deno, lib, nodeLauncher) {
  const { PERMISSIONS, WRITES, WIDENINGS, CONTROL_SOCKET, CONTROL_SOCKET_PATH, READ } = launcher;
  const other = (launcher.OTHER ?? READ).filter((f) => !f.startsWith("--allow-read="));
  const lines = [];
  const add = (line) => lines.push(line);
  add("#!/bin/sh");
  // For sh, `:` with an argument; for Node, a string and the start of a comment that hides the shell part.
  add("':' /*-");
  add("# hooktap's shell launcher, written by npm/postinstall.cjs at install time (docs/install.md).");
  add(`deno=${quote(deno)}`);
  add(`lib=${quote(lib)}`);
  add(`if [ ! -x "$deno" ]; then exec node ${quote(nodeLauncher)} "$@"; fi`);
  // Option values, collected as the Node launcher's optionValues does (up to `--`).
  const options = [];
  for (const [, long, short] of WIDENINGS) {
    if (!options.some((o) => o.long === long)) options.push({ long, short });
  }
  add("cmd= seen= want= help=");
  for (const { long } of options) add(`${variable(long)}=`);
  add("for w do");
  // The command: the first word that is not an option (before `--`), as the Node launcher's commandOf.
  add('  [ -z "$seen" ] && case "$w" in --) seen=1 ;; -*) ;; *) cmd=$w seen=1 ;; esac');
  add('  if [ -n "$want" ]; then');
  add('    [ -n "$w" ] && eval "$want=\\"\\${$want:+\\$$want,}\\$w\\""');
  add("    want=; continue");
  add("  fi");
  add('  case "$w" in');
  add("    --) break ;;");
  for (const { long, short } of options) {
    const v = variable(long);
    add(`    --${long}${short ? ` | -${short}` : ""}) want=${v} ;;`);
    add(`    --${long}=?*) ${v}="\${${v}:+$${v},}\${w#--${long}=}" ;;`);
    if (short) add(`    -${short}?*) ${v}="\${${v}:+$${v},}\${w#-${short}}" ;;`);
  }
  add("    -h | --help) help=1 ;;");
  add("    *) ;;");
  add("  esac");
  add("done");
  // `dir` values: the directory of each file.
  add("dirs() {");
  add("  out= rest=$1");
  add('  while [ -n "$rest" ]; do');
  add('    one=${rest%%,*}; case "$rest" in *,*) rest=${rest#*,} ;; *) rest= ;; esac');
  add('    case "$one" in *[/]*) d=${one%/*}; [ -z "$d" ] && d=/ ;; *) d=. ;; esac');
  add("    out=${out:+$out,}$d");
  add("  done");
  add('  printf %s "$out"');
  add("}");
  add("flags= reads= writes= net=");
  add('case "$cmd" in');
  for (const [command, list] of Object.entries(PERMISSIONS)) {
    const fixed = list.filter((f) => !f.startsWith("--allow-read=") && !f.startsWith("--allow-write="));
    if (fixed.some((f) => /[\s'"\\$`]/.test(f))) throw new Error(`a flag sh would split: ${fixed}`);
    const reads = list.filter((f) => f.startsWith("--allow-read=")).map((f) => f.slice(13));
    const writes = [
      ...list.filter((f) => f.startsWith("--allow-write=")).map((f) => f.slice(14)),
      ...(WRITES[command] ?? []),
    ];
    add(`  ${command})`);
    add(
      `    flags=${quote(fixed.join(" "))}; reads=${quote(reads.join(","))}; writes=${
        quote(writes.join(","))
      }`,
    );
    for (const [commands, long, , kind] of WIDENINGS) {
      if (!(commands === "*" || commands.split(",").includes(command))) continue;
      const v = `$${variable(long)}`;
      const value = kind === "dir" ? `$(dirs "${v}")` : v;
      const guard = `[ -n "${v}" ] && `;
      if (kind !== "write") add(`    ${guard}reads="\${reads:+$reads,}${value}"`);
      if (kind !== "read") add(`    ${guard}writes="\${writes:+$writes,}${value}"`);
    }
    if (CONTROL_SOCKET.includes(command)) {
      // Deno's cwd is the physical directory: `pwd -P`, as process.cwd() is for the Node launcher.
      add(`    net="--allow-net=unix:$(pwd -P)/${CONTROL_SOCKET_PATH}"`);
    }
    add("    ;;");
  }
  add(`  *) flags=${quote(other.join(" "))}; reads=${quote(READ.map((f) => f.slice(13)).join(","))} ;;`);
  add("esac");
  // The script: the first argument's own bundle (the Node launcher's ENTRIES), else main.js.
  add("script=main.js script_flags=");
  const entries = launcher.ENTRIES ?? {};
  const byScript = new Map();
  for (const [word, script] of Object.entries(entries)) {
    byScript.set(script, [...(byScript.get(script) ?? []), word]);
  }
  if (byScript.size > 0) {
    add('case "${1-}" in');
    for (const [script, words] of byScript) {
      const flags = (launcher.ENTRY_FLAGS ?? {})[script] ?? [];
      if ([script, ...flags].some((w) => /[^\w.=-]/.test(w))) {
        throw new Error(`a word sh would split: ${script}`);
      }
      add(`  ${words.map(quote).join(" | ")}) script=${script} script_flags=${quote(flags.join(" "))} ;;`);
    }
    add("esac");
  }
  add("export DENO_NO_UPDATE_CHECK=1");
  // How the user runs hooktap, as the Node launcher's invokedAs() tells it: `npx hooktap` under npx and in an
  // npm script, `hooktap` when this file is the first hooktap on the PATH, else the path that ran it ($0:
  // as typed, `./node_modules/.bin/hooktap`; made relative when it is under the working directory).
  add(
    'if [ "${npm_command-}" = exec ] || [ -n "${npm_lifecycle_event-}" ]; then HOOKTAP_INVOKED_AS="npx hooktap"',
  );
  add('elif [ "$(command -v hooktap 2>/dev/null)" = "$0" ]; then HOOKTAP_INVOKED_AS=hooktap');
  add(
    'else case "$0" in "$PWD"/*) HOOKTAP_INVOKED_AS="./${0#"$PWD"/}" ;; *) HOOKTAP_INVOKED_AS="$0" ;; esac',
  );
  add("fi");
  add("export HOOKTAP_INVOKED_AS");
  // dev and init in a subdirectory of a Node project whose root has a config: refused, as the Node
  // launcher's configAbove() and aboveMessage() do.
  if (launcher.PROJECT_ROOT_COMMANDS !== undefined) {
    const messages = launcher.PROJECT_ROOT_COMMANDS.map((command) =>
      `${command}) msg=${launcher.aboveMessage("$d", command, "$qas", "$ql", "$qd")} ;;`
    );
    if (messages.some((m) => /["`\\]/.test(m))) throw new Error("a message would end sh's double quotes");
    add(
      `if case " ${
        launcher.PROJECT_ROOT_COMMANDS.join(" ")
      } " in *" $cmd "*) [ -n "$cmd" ] ;; *) false ;; esac && ` +
        '[ -z "$help" ] && [ -z "$o_config" ] && [ ! -e hooktap.config.ts ] && [ ! -e .hooktap ] && ' +
        "[ ! -e package.json ]; then",
    );
    add('  d=$(pwd -P) h=$(cd "$HOME" 2>/dev/null && pwd -P)');
    add('  while [ "$d" != / ] && [ -n "$d" ]; do');
    add('    d=${d%/*}; [ -z "$d" ] && d=/');
    // As the Node launcher: the home folder is no project.
    add('    [ -n "$h" ] && [ "$d" = "$h" ] && break');
    add('    if [ -e "$d/package.json" ]; then');
    add('      if [ -e "$d/hooktap.config.ts" ]; then');
    // The commands in the message as shell words, quoted as the Node launcher's shellQuote() quotes them.
    add(
      "        q() { case \"$1\" in '' | *[!A-Za-z0-9_@%+=:,./-]*) " +
        `printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\\\\\''/g")" ;; *) printf '%s' "$1" ;; esac; }`,
    );
    add('        qd=$(q "$d") ql=; for a do ql="${ql:+$ql }$(q "$a")"; done');
    add(
      '        case "$HOOKTAP_INVOKED_AS" in *[/]*) qas=$(q "$HOOKTAP_INVOKED_AS") ;; *) qas=$HOOKTAP_INVOKED_AS ;; esac',
    );
    add('        msg=; case "$cmd" in');
    for (const m of messages) add(`          ${m.replace(/^(\w+\) msg=)(.*)( ;;)$/, '$1"$2"$3')}`);
    add("        esac");
    add(`        printf '%s\\n' "error: $msg" >&2; exit 1`);
    add("      fi");
    add("      break");
    add("    fi");
    add("  done");
    add("fi");
  }
  add(
    "# $flags and $script_flags hold no space, quote or $ (checked when this file was written): they split.",
  );
  add(
    'exec "$deno" run --quiet --no-config --no-lock --no-prompt --no-remote --node-modules-dir=manual --unstable-detect-cjs ' +
      '"--import-map=$lib/import_map.json" "--allow-read=$lib" $flags ${reads:+"--allow-read=$reads"} ' +
      '${writes:+"--allow-write=$writes"} ${net:+"$net"} $script_flags "$lib/$script" "$@"',
  );
  if (lines.some((line) => line.includes("*/"))) throw new Error("the shell part would end Node's comment");
  // For sh, what follows is a here-document it never runs; for Node, the end of the comment, then code.
  add(":<<'//'");
  add("*/");
  add('"use strict";');
  add(`require(${JSON.stringify(nodeLauncher)}).launch(process.argv.slice(2));`);
  add("//");
  return lines.join("\n") + "\n";
}

/** Writes the shell launcher over bin/hooktap.cjs; returns why it did not, or undefined. */
function install() {
  if (process.platform === "win32") return "Windows runs bins through Node's shims";
  if (!fs.existsSync(LAUNCHER)) return "bin/launcher.cjs is missing";
  const launcher = require(LAUNCHER);
  // denoBinary() exits with a message when there is none: ask in a child-free way first.
  let deno;
  const exit = process.exit;
  process.exit = () => {
    throw new Error("no Deno binary");
  };
  const write = process.stderr.write;
  process.stderr.write = () => true;
  try {
    deno = fs.realpathSync(launcher.denoBinary());
  } catch {
    return "the Deno binary of the `deno` package was not found";
  } finally {
    process.exit = exit;
    process.stderr.write = write;
  }
  const lib = fs.realpathSync(path.join(BIN, "..", "lib"));
  const text = shellLauncher(launcher, deno, lib, fs.realpathSync(LAUNCHER));
  const temp = `${TARGET}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode: 0o755 });
  fs.chmodSync(temp, 0o755);
  // A rename: npm's link to bin/hooktap.cjs (by name) now finds the shell launcher.
  fs.renameSync(temp, TARGET);
  return undefined;
}

if (require.main === module) {
  try {
    const why = install();
    if (why !== undefined && process.env.HOOKTAP_POSTINSTALL_DEBUG) {
      process.stderr.write(`hooktap: kept the Node launcher: ${why}\n`);
    }
  } catch (error) {
    // Never fail the install: the Node launcher stays, and works.
    if (process.env.HOOKTAP_POSTINSTALL_DEBUG) process.stderr.write(`hooktap: postinstall: ${error}\n`);
  }
} else module.exports = { shellLauncher, install };
