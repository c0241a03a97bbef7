// `hooktap/testing`: hooktap in a Node test (node:test, vitest, jest). It drives the real CLI this package
// ships, on the same Deno binary and with the same permission flags as the `hooktap` bin (bin/launcher.cjs's
// denoBinary and denoArgs): `startHooktap` runs `hooktap dev --json` on a free port in a directory of its
// own and reads each stored event from that directory's `.hooktap/events.jsonl`; `trigger` runs
// `hooktap trigger --json`. Nothing is captured, verified or signed in Node. Node built-ins only.
import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LIB = path.join(HERE, "lib");
const LAUNCHER = path.join(HERE, "bin", "launcher.cjs");
/** The config file startHooktap writes in its directory (a name no hooktap command looks up by itself). */
const CONFIG_FILE = "hooktap-testing.config.mjs";

/** Default `waitFor` timeout, in milliseconds (the Deno library's). */
export const DEFAULT_WAIT_TIMEOUT_MS = 5000;
/** Default longest wait for `hooktap dev` to listen, in milliseconds. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;
/** How long `stop()` waits after SIGINT before it kills dev. */
const STOP_GRACE_MS = 5000;

// src/names.ts's VERDICT_NAMES (tests/npm_testing_test.ts fails when they drift apart).
const VERDICTS = ["valid", "invalid", "expired", "unsigned", "no-secret"];
const FILTER_FIELDS = ["endpoint", "method", "path", "provider", "type", "verdict"];

/** Running dev processes (and their clean-ups), killed when this process exits without stopping them. */
const RUNNING = new Map();
let exitHook = false;

function killAll() {
  for (const [child, cleanup] of RUNNING) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    cleanup();
  }
  RUNNING.clear();
}

/**
 * Kills every running dev when this process exits (Node's `exit` event) or is ended by SIGTERM or SIGHUP
 * (which skip `exit`). A signal that had no other listener is raised again once dev is killed, so the
 * process still ends as that signal ends it; where the test runner listens for it, the runner decides.
 */
function killAllOnExit() {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", killAll);
  for (const signal of ["SIGTERM", "SIGHUP"]) {
    const onSignal = () => {
      killAll();
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    try {
      process.on(signal, onSignal);
    } catch { /* a signal this platform lacks */ }
  }
}

/** The Node launcher's module (its tables and functions), or an error naming the fix. */
function launcher() {
  if (!existsSync(LAUNCHER)) {
    throw new Error(
      `hooktap/testing: ${LAUNCHER} is missing; reinstall hooktap (npm install -D hooktap).`,
    );
  }
  return createRequire(import.meta.url)(LAUNCHER);
}

/** The Deno binary, as the bin finds it; its refusal (which would exit the process) as an Error. */
function denoBinary(l) {
  const exit = process.exit;
  const write = process.stderr.write;
  let said = "";
  process.exit = () => {
    throw new Error("no Deno binary");
  };
  process.stderr.write = (chunk) => {
    said += String(chunk);
    return true;
  };
  try {
    return l.denoBinary();
  } catch {
    throw new Error(`hooktap/testing: ${said.replace(/^error: /, "").trim() || "no Deno binary was found"}`);
  } finally {
    process.exit = exit;
    process.stderr.write = write;
  }
}

/** Starts the CLI with `args` in `cwd`, as the `hooktap` bin runs it. */
function spawnCli(args, cwd, env) {
  const l = launcher();
  return spawn(denoBinary(l), l.denoArgs(LIB, args, cwd), {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...env,
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      HOOKTAP_INVOKED_AS: "npx hooktap",
    },
  });
}

// ---------------------------------------------------------------------------------------------------------
// Config: plain data only.

function kindOf(value) {
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  if (typeof value === "bigint") return "a bigint";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      return `a ${proto?.constructor?.name ?? "class"} object`;
    }
  }
  return undefined;
}

/** The first value in `value` that is not plain data (JSON), as `[path, kind]`, or undefined. */
function notData(value, at) {
  const kind = kindOf(value);
  if (kind !== undefined) return [at, kind];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = notData(value[i], `${at}[${i}]`);
      if (found) return found;
    }
  } else if (typeof value === "object" && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      const found = notData(
        v,
        /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`,
      );
      if (found) return found;
    }
  }
  return undefined;
}

/** The default endpoint: any path, the usual methods. */
const ANY = { name: "default", path: "/*", method: ["GET", "POST", "PUT", "PATCH", "DELETE"] };

/** The config file's text for `options`, or a TypeError naming what is not plain data. */
function configText(options) {
  const endpoints = options.endpoints ?? [ANY];
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw new TypeError(
      "startHooktap: endpoints must be a non-empty array of endpoints as in hooktap.config.ts " +
        `({ name, path, method, provider?, secret? }), got ${JSON.stringify(endpoints)}`,
    );
  }
  const config = { port: 0, ui: false, endpoints };
  if (options.maxBodySize !== undefined) config.maxBodySize = options.maxBodySize;
  const found = notData(config, "config");
  if (found) {
    const [at, kind] = found;
    throw new TypeError(
      `startHooktap: ${at.replace(/^config\./, "")} is ${kind}; hooktap/testing writes the endpoints to a ` +
        "config file as plain data (strings, numbers, booleans, null, arrays, objects). Give a fixed value " +
        "(a `response: { status, body }` instead of a function), or run `hooktap dev` yourself with your " +
        "own hooktap.config.ts.",
    );
  }
  return `// Written by hooktap/testing (startHooktap).\nexport default ${
    JSON.stringify(config, null, 2)
  };\n`;
}

// ---------------------------------------------------------------------------------------------------------
// Events, as the Deno library's `toReceivedEvent` shapes them (src/testing/event.ts).

/** The exact body bytes of a stored record. */
function decodeBody(record) {
  return record.bodyEncoding === "base64"
    ? new Uint8Array(Buffer.from(record.body, "base64"))
    : new TextEncoder().encode(record.body);
}

/** A stored record (a line of events.jsonl) as the event a test sees. */
export function toReceivedEvent(record) {
  const bytes = decodeBody(record);
  let headers;
  const all = (name) => {
    const lower = String(name).toLowerCase();
    return record.headers.filter(([k]) => k.toLowerCase() === lower).map(([, v]) => v);
  };
  const optional = {};
  for (const key of ["provider", "type", "verdict", "params", "response", "trigger"]) {
    if (record[key] !== undefined) optional[key] = record[key];
  }
  return {
    id: record.id,
    endpoint: record.endpoint,
    receivedAt: new Date(record.receivedAt),
    method: record.method,
    path: record.path,
    query: record.query,
    searchParams: new URLSearchParams(record.query),
    rawHeaders: record.headers,
    get headers() {
      if (headers === undefined) {
        headers = new Headers();
        for (const [name, value] of record.headers) {
          try {
            headers.append(name, value);
          } catch { /* a name or value Headers refuses: rawHeaders has it */ }
        }
      }
      return headers;
    },
    size: bytes.length,
    ...optional,
    record,
    header: (name) => all(name)[0],
    headerAll: all,
    bytes: () => bytes.slice(),
    text: () => new TextDecoder().decode(bytes),
    json() {
      const text = new TextDecoder().decode(bytes);
      try {
        return JSON.parse(text);
      } catch (error) {
        const start = text.length > 40 ? `${text.slice(0, 40)}…` : text;
        throw new SyntaxError(
          `The body of ${record.id} (${record.method} ${record.path}) is not JSON; it starts ${
            JSON.stringify(start)
          }. Use .text() or .bytes().`,
          { cause: error },
        );
      }
    },
  };
}

function describeEvent(e) {
  const what = [e.provider, e.type, e.verdict ? `verdict ${e.verdict.status}` : undefined].filter(Boolean);
  return `${e.method} ${e.path} (endpoint ${e.endpoint}${
    what.length ? `, ${what.join(", ")}` : ""
  }) at ${e.receivedAt.toISOString()}`;
}

// ---------------------------------------------------------------------------------------------------------
// waitFor's filters (src/testing/wait_for.ts).

function filterProblem(match) {
  if (typeof match === "function") return undefined;
  if (typeof match !== "object" || match === null || Array.isArray(match) || match instanceof RegExp) {
    return `waitFor takes a filter object ({ ${FILTER_FIELDS.join(", ")} }) or a predicate ` +
      `(event) => boolean, got ${match instanceof RegExp ? String(match) : JSON.stringify(match)}` +
      (typeof match === "string" ? `: for a path, write { path: ${JSON.stringify(match)} }` : "");
  }
  for (const [key, value] of Object.entries(match)) {
    if (!FILTER_FIELDS.includes(key)) {
      return `waitFor's filter has no field ${JSON.stringify(key)} (known: ${FILTER_FIELDS.join(", ")}); ` +
        "for anything else pass a predicate: (event) => boolean";
    }
    if (value === undefined) continue;
    const pathOk = key === "path" && value instanceof RegExp;
    if (typeof value !== "string" && !pathOk) {
      return `waitFor's filter field ${key} must be a string${key === "path" ? " or a RegExp" : ""}, got ${
        JSON.stringify(value)
      }`;
    }
    if (key === "verdict" && !VERDICTS.includes(value)) {
      return `waitFor's filter field verdict must be one of ${VERDICTS.join(", ")}, got ${
        JSON.stringify(value)
      }`;
    }
  }
  return undefined;
}

function matches(match, e) {
  if (typeof match === "function") return Boolean(match(e));
  if (match.endpoint !== undefined && e.endpoint !== match.endpoint) return false;
  if (match.method !== undefined && e.method !== match.method.toUpperCase()) return false;
  if (typeof match.path === "string" && e.path !== match.path) return false;
  if (match.path instanceof RegExp && !match.path.test(e.path)) return false;
  if (match.provider !== undefined && e.provider !== match.provider) return false;
  if (match.type !== undefined && e.type !== match.type) return false;
  if (match.verdict !== undefined && e.verdict?.status !== match.verdict) return false;
  return true;
}

function describeMatch(match) {
  if (typeof match === "function") return `the predicate ${match.name || "(anonymous)"}`;
  const parts = Object.entries(match).filter(([, v]) => v !== undefined).map(([k, v]) =>
    `${k}: ${v instanceof RegExp ? String(v) : JSON.stringify(v)}`
  );
  return parts.length === 0 ? "{} (any event)" : `{ ${parts.join(", ")} }`;
}

const LISTED = 20;

function list(items, line) {
  const shown = items.slice(-LISTED).map((i) => `\n  - ${line(i)}`).join("");
  return (items.length > LISTED ? `\n  (and ${items.length - LISTED} earlier)` : "") + shown;
}

/** What arrived so far, for a wait's message. */
function arrivals(url, events, refused) {
  if (events.length === 0 && refused.length === 0) {
    return `Nothing arrived at ${url} (is the app sending to this URL?).`;
  }
  let text = events.length === 0
    ? "No event was received."
    : `Received ${events.length} event${events.length === 1 ? "" : "s"}:${list(events, describeEvent)}`;
  if (refused.length > 0) {
    text += `\nRefused ${refused.length} request${refused.length === 1 ? "" : "s"}:${
      list(refused, (r) => `${r.method} ${r.path} → ${r.status} at ${r.time}`)
    }`;
  }
  return text;
}

function waitOptions(options) {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `waitFor's options must be an object ({ timeoutMs }), got ${JSON.stringify(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (key !== "timeoutMs") {
      throw new TypeError(`waitFor's options have no field ${JSON.stringify(key)} (known: timeoutMs)`);
    }
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  if (typeof timeoutMs !== "number" || !(timeoutMs >= 0) || !Number.isFinite(timeoutMs)) {
    throw new RangeError(`waitFor's timeoutMs must be a number of milliseconds >= 0, got ${timeoutMs}`);
  }
  return timeoutMs;
}

// ---------------------------------------------------------------------------------------------------------
// The events log: read forward from the last offset (events.jsonl only grows while dev runs and nothing
// prunes).

/** The size of `file`, 0 when there is none. */
function sizeOf(file) {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Reads the records appended to `file` since the last call, from byte `start` (a `cwd` may hold events of
 * earlier runs). When the file shrinks (dev cut a torn last line at start), it reads again from the start,
 * taking only the records received from `since` (an ISO time) on.
 */
function eventReader(file, start, since) {
  let offset = start;
  let from = "";
  return function readNew() {
    let size;
    try {
      size = statSync(file).size;
    } catch {
      return [];
    }
    if (size < offset) {
      offset = 0;
      from = since;
    }
    if (size === offset) return [];
    // Only what was appended since the last read, in whole lines, cut at a newline byte: a line being
    // appended is read next time, never decoded in two pieces (a character split between reads would become
    // U+FFFD in the body).
    const bytes = Buffer.alloc(size - offset);
    const fd = openSync(file, "r");
    let got = 0;
    try {
      while (got < bytes.length) {
        const n = readSync(fd, bytes, got, bytes.length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
    } finally {
      closeSync(fd);
    }
    const end = bytes.subarray(0, got).lastIndexOf(0x0a) + 1;
    if (end === 0) return [];
    const text = bytes.subarray(0, end).toString("utf8");
    offset += end;
    const records = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const record = JSON.parse(line);
        const known = record && (record.v === 1 || record.v === 2) && typeof record.id === "string";
        if (known && !(record.receivedAt < from)) records.push(record);
      } catch { /* not a record of a version this reads */ }
    }
    return records;
  };
}

// ---------------------------------------------------------------------------------------------------------
// startHooktap

function startOptions(options) {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`startHooktap takes an options object, got ${JSON.stringify(options)}`);
  }
  const known = ["endpoints", "cwd", "maxBodySize", "startTimeoutMs", "env"];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`startHooktap has no option ${JSON.stringify(key)} (known: ${known.join(", ")})`);
    }
  }
}

/**
 * Starts `hooktap dev` for a test and resolves once it listens. See testing.d.ts.
 * @param {import("./testing.d.ts").StartOptions} [options]
 * @returns {Promise<import("./testing.d.ts").Hooktap>}
 */
export async function startHooktap(options = {}) {
  startOptions(options);
  const text = configText(options);
  const made = options.cwd === undefined;
  if (!made && !(typeof options.cwd === "string" && existsSync(options.cwd))) {
    throw new TypeError(
      `startHooktap's cwd must be an existing directory, got ${
        JSON.stringify(options.cwd)
      }: create it first, ` +
        "or leave cwd out for a new temporary directory",
    );
  }
  const dir = made ? mkdtempSync(path.join(tmpdir(), "hooktap-test-")) : path.resolve(options.cwd);
  const configPath = path.join(dir, CONFIG_FILE);
  writeFileSync(configPath, text, { mode: 0o600 });
  // Only this run's events: a `cwd` may hold earlier ones.
  const since = new Date().toISOString();
  const start = made ? 0 : sizeOf(path.join(dir, ".hooktap", "events.jsonl"));
  const cleanup = () => {
    try {
      if (made) rmSync(dir, { recursive: true, force: true });
      else rmSync(configPath, { force: true });
    } catch { /* best effort */ }
  };
  let child;
  try {
    child = spawnCli(["dev", "--json", "--port", "0", "--no-ui", "--config", CONFIG_FILE], dir, options.env);
  } catch (error) {
    cleanup();
    throw error;
  }
  RUNNING.set(child, cleanup);
  killAllOnExit();
  // The test's own work keeps Node alive, not dev: a test that never stops it still ends (and the exit
  // hook kills dev).
  child.unref();
  child.stdout.unref?.();
  child.stderr.unref?.();

  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    if (stderr.length > 64_000) stderr = stderr.slice(-32_000);
  });
  // Settled on "close", once dev's output is read to its end (its last request lines included).
  const exited = new Promise((resolve) => {
    child.on("exit", () => RUNNING.delete(child));
    child.on("close", (code, signal) => {
      RUNNING.delete(child);
      resolve({ code, signal });
    });
    child.on("error", (error) => {
      RUNNING.delete(child);
      stderr += `\ncannot start Deno: ${error.message}`;
      resolve({ code: null, signal: null });
    });
  });

  const events = [];
  const refused = [];
  const pending = new Set();
  let sawReady = false;
  let readEvents = () => [];
  let url = "";
  let stopping = false;
  let ended; // the message pending and later waits get once dev is gone
  let gotReady;
  const readyLine = new Promise((resolve) => gotReady = resolve);

  const offer = (event) => {
    events.push(event);
    for (const entry of [...pending]) {
      let hit;
      try {
        hit = matches(entry.match, event);
      } catch (error) {
        entry.reject(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (hit) entry.resolve(event);
    }
  };
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  lines.on("line", (line) => {
    let obj;
    try {
      obj = JSON.parse(line);
    } catch {
      return;
    }
    if (!sawReady) {
      if (obj?.type === "ready") {
        sawReady = true;
        gotReady(obj);
      }
      return;
    }
    if (typeof obj?.id === "string") {
      for (const record of readEvents()) offer(toReceivedEvent(record));
    } else if (obj && obj.id === null && obj.status >= 400) {
      refused.push(obj);
      if (refused.length > 100) refused.shift();
    }
  });

  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let timer;
  const outcome = await Promise.race([
    readyLine.then((r) => ({ ready: r })),
    exited.then((e) => ({ exit: e })),
    new Promise((resolve) => timer = setTimeout(() => resolve({ timeout: true }), startTimeoutMs)),
  ]);
  clearTimeout(timer);
  if (!outcome.ready) {
    if (outcome.timeout) {
      child.kill("SIGKILL");
      await exited;
    }
    cleanup();
    const why = outcome.timeout
      ? `did not listen within ${startTimeoutMs} ms`
      : `exited (${outcome.exit.signal ?? `code ${outcome.exit.code}`}) before it listened`;
    throw new Error(`startHooktap: hooktap dev ${why}:\n${stderr.trim() || "(it printed nothing)"}`);
  }
  const ready = outcome.ready;
  url = ready.url;
  readEvents = eventReader(path.join(ready.dataDir, "events.jsonl"), start, since);
  // Events stored before the reader was made (a request sent the moment dev listened).
  for (const record of readEvents()) offer(toReceivedEvent(record));

  const urls = {};
  for (const e of ready.endpoints) urls[e.name] = e.url;

  const endWaits = (message) => {
    ended ??= message;
    for (const entry of [...pending]) entry.reject(new Error(message(entry.match)));
  };
  exited.then(({ code, signal }) => {
    if (stopping) return;
    for (const record of readEvents()) offer(toReceivedEvent(record));
    endWaits((m) =>
      `hooktap dev exited (${signal ?? `code ${code}`}) before an event matched ${describeMatch(m)}:\n${
        stderr.trim() || "(it printed nothing)"
      }\n${arrivals(url, events, refused)}`
    );
  });

  let stopped;
  const stop = () => {
    stopped ??= (async () => {
      stopping = true;
      if (RUNNING.has(child)) {
        child.ref();
        child.kill("SIGINT");
        const kill = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
        await exited;
        clearTimeout(kill);
      }
      // The last lines dev printed, and anything stored after them.
      for (const record of readEvents()) offer(toReceivedEvent(record));
      lines.close();
      endWaits((m) =>
        `hooktap stopped before an event matched ${describeMatch(m)}.\n${arrivals(url, events, refused)}`
      );
      cleanup();
    })();
    return stopped;
  };

  const hooktap = {
    url,
    port: ready.port,
    dir,
    dataDir: ready.dataDir,
    pid: ready.pid,
    urls,
    urlOf(name) {
      const found = urls[name];
      if (found === undefined) {
        throw new Error(
          `startHooktap has no endpoint named ${JSON.stringify(name)}; it has ${
            Object.keys(urls).map((n) => JSON.stringify(n)).join(", ")
          }.`,
        );
      }
      return found;
    },
    events: () => [...events],
    waitFor(match = {}, opts = {}) {
      const problem = filterProblem(match);
      if (problem !== undefined) return Promise.reject(new TypeError(problem));
      let timeoutMs;
      try {
        timeoutMs = waitOptions(opts);
      } catch (error) {
        return Promise.reject(error);
      }
      try {
        const hit = events.find((e) => matches(match, e));
        if (hit !== undefined) return Promise.resolve(hit);
      } catch (error) {
        return Promise.reject(error);
      }
      if (ended !== undefined) return Promise.reject(new Error(ended(match)));
      let entry;
      const promise = new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          pending.delete(entry);
          reject(
            new Error(
              `waitFor timed out after ${timeoutMs} ms: no event matched ${describeMatch(match)}.\n${
                arrivals(url, events, refused)
              }`,
            ),
          );
        }, timeoutMs);
        entry = {
          match,
          resolve(e) {
            clearTimeout(t);
            pending.delete(entry);
            resolve(e);
          },
          reject(error) {
            clearTimeout(t);
            pending.delete(entry);
            reject(error);
          },
        };
        pending.add(entry);
      });
      promise.catch(() => {});
      return promise;
    },
    stop,
  };
  if (typeof Symbol.asyncDispose === "symbol") hooktap[Symbol.asyncDispose] = stop;
  return hooktap;
}

// ---------------------------------------------------------------------------------------------------------
// trigger

/** A `set` value as `--set` reads it back: a string that is not JSON as itself, anything else as JSON. */
function typed(value) {
  if (typeof value !== "string") return JSON.stringify(value);
  try {
    JSON.parse(value);
  } catch {
    return value;
  }
  return JSON.stringify(value);
}

/**
 * `to` as `--to URL`, or a hooktap from startHooktap: the CLI runs in its directory without `--to`, so it
 * sends through that dev (dev.lock names its config): the endpoint of the provider, its secret unless
 * `secret` is given, and the stored event marked `trigger`.
 */
function target(to) {
  if (typeof to === "string") {
    let url;
    try {
      url = new URL(to);
    } catch { /* below */ }
    if (url !== undefined && /^https?:$/.test(url.protocol)) return { args: ["--to", to] };
    const fix = /^[\w.-]+:\d+(\/|$)/.test(to) ? `: did you mean http://${to} ?` : "";
    throw new TypeError(
      "trigger's `to` must be a full http(s) URL like http://localhost:3000/webhook, or a hooktap from " +
        `startHooktap, got ${JSON.stringify(to)}${fix}`,
    );
  }
  if (to && typeof to === "object" && typeof to.dir === "string" && typeof to.stop === "function") {
    return { args: [], cwd: to.dir };
  }
  throw new TypeError(
    `trigger needs \`to\`: a URL, or a hooktap from startHooktap, got ${JSON.stringify(to)}`,
  );
}

/**
 * Runs `hooktap trigger <provider> <event> --json`. See testing.d.ts.
 * @param {string} provider
 * @param {string} event
 * @param {import("./testing.d.ts").TriggerOptions} options
 * @returns {Promise<import("./testing.d.ts").TriggerResult>}
 */
export async function trigger(provider, event, options) {
  if (typeof provider !== "string" || typeof event !== "string") {
    throw new TypeError(
      'trigger takes a provider and an event: trigger("stripe", "invoice.paid", { to, secret })',
    );
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError("trigger needs options with `to`: trigger(provider, event, { to, secret })");
  }
  const known = ["to", "secret", "set", "setNew", "headers", "timeoutMs", "env"];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`trigger has no option ${JSON.stringify(key)} (known: ${known.join(", ")})`);
    }
  }
  const { args: to, cwd } = target(options.to);
  if (options.secret === "") {
    throw new TypeError(
      "trigger's `secret` is empty (an unset environment variable?): pass the secret the app verifies " +
        "with, or leave `secret` out to send the event unsigned.",
    );
  }
  const args = ["trigger", provider, event, ...to, "--json"];
  if (options.secret !== undefined) args.push("--secret", String(options.secret));
  for (const [key, value] of Object.entries(options.set ?? {})) args.push("--set", `${key}=${typed(value)}`);
  if (options.setNew) args.push("--set-new");
  for (const [name, value] of options.headers ?? []) args.push("-H", `${name}: ${value}`);
  if (options.timeoutMs !== undefined) {
    if (
      typeof options.timeoutMs !== "number" || !(options.timeoutMs > 0) || !Number.isFinite(options.timeoutMs)
    ) {
      throw new RangeError(
        `trigger's timeoutMs must be a number of milliseconds above 0, got ${options.timeoutMs}`,
      );
    }
    args.push("--timeout", `${Math.ceil(options.timeoutMs)}ms`);
  }
  const dir = cwd ?? mkdtempSync(path.join(tmpdir(), "hooktap-trigger-"));
  try {
    const child = spawnCli(args, dir, options.env);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => stdout += c);
    child.stderr.setEncoding("utf8").on("data", (c) => stderr += c);
    const [code, signal] = await Promise.race([
      once(child, "close"),
      once(child, "error").then(([error]) => {
        throw new Error(`trigger: cannot start Deno: ${error.message}`);
      }),
    ]);
    const said = stderr.split("\n").filter((l) => !/^warning: /.test(l)).join("\n").trim();
    const deliveries = [];
    for (const line of stdout.split("\n")) {
      if (line.trim() === "") continue;
      try {
        deliveries.push(JSON.parse(line));
      } catch { /* not a delivery */ }
    }
    if ((code !== 0 && code !== 1) || deliveries.length === 0) {
      throw new Error(
        `trigger: hooktap trigger ${provider} ${event} failed (${signal ?? `exit ${code}`}): ${
          said.replace(/^error: /, "") || stderr.trim() || "(it printed nothing)"
        }`,
      );
    }
    const unanswered = deliveries.find((d) => d.status === null);
    if (unanswered !== undefined) {
      throw new Error(
        `trigger: ${provider} ${event} sent to ${unanswered.url} got no answer: ${
          unanswered.error ?? "no response"
        }`,
      );
    }
    const first = deliveries[0];
    return {
      ok: deliveries.every((d) => d.ok),
      request: { method: first.method, url: first.url, headers: first.headers, body: first.body },
      response: { status: first.status, body: first.answer ?? "" },
      deliveries,
      ...(first.publicKey ? { publicKey: first.publicKey } : {}),
    };
  } finally {
    if (cwd === undefined) rmSync(dir, { recursive: true, force: true });
  }
}
