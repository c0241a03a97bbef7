/**
 * `hooktap doctor`'s checks, in the order a webhook travels backwards:
 * is a `dev` running here, does its port answer, is a tunnel up and pointed
 * at that port, do unmatched requests show a sender with a wrong URL or
 * method, does each endpoint have recent events, does the config load.
 * Pure: facts in, findings out, each with what to do.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import { shownPath, unmatchedHints } from "../route/hints.ts";
import { suggestCommand } from "../text/command_line.ts";
import { plural } from "../text/format.ts";
import type { DoctorFacts, ForwardFact } from "./facts.ts";
import { judgeUnmatched } from "./unmatched.ts";

/** The outcome of one check. */
export interface Check {
  id: "dev" | "port" | "tunnel" | "hub" | "senders" | "events" | "forward" | "given-up" | "config";
  status: "ok" | "warn" | "fail" | "skip";
  /** What was found, one line or a few. */
  summary: string;
  /** What to do, when not ok. */
  fix?: string;
  details?: string[];
}

/** A command to paste: as the user runs hooktap, with the `--config` in use (`config: false`: without it). */
function command(f: DoctorFacts, words: readonly string[], config = true): string {
  return suggestCommand(
    [...words, ...(config ? f.command?.config ?? [] : [])],
    f.command?.runner ?? "hooktap",
  );
}

/**
 * The channel URL senders use when this project receives through a hub: dev is connected to it, or no
 * tunnel runs and dev last received through it here (.hooktap/hub.json names it).
 */
function hubOrigin(f: DoctorFacts): string | undefined {
  if (f.hub === null) return undefined;
  return (f.dev.running && f.hub.connected) || f.tunnels.length === 0 ? f.hub.url : undefined;
}

function ago(iso: string, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

function devCheck(f: DoctorFacts): Check {
  if (!f.dev.running) {
    return {
      id: "dev",
      status: "fail",
      summary: "No hooktap dev is running for this directory (nobody holds .hooktap/dev.lock).",
      fix: _configFirst(f) ??
        // Another program (or another directory's dev) has the port: dev started now would only fail to bind.
        (f.probe !== undefined && f.probe.state !== "closed"
          ? `port ${f.port} is taken (the port check below says by what): free it or set another port, ` +
            `then start the receiver here: ${command(f, ["dev"])}`
          : `start the receiver here: ${command(f, ["dev"])}`),
    };
  }
  const o = f.dev.owner;
  return {
    id: "dev",
    status: "ok",
    summary: `hooktap dev is running${
      o ? ` (pid ${o.pid}, port ${o.port ?? "?"}, since ${o.startedAt})` : ""
    }.`,
  };
}

function portCheck(f: DoctorFacts): Check {
  const p = f.probe;
  if (f.port === undefined || p === undefined) {
    return {
      id: "port",
      status: "skip",
      summary: "No port to check (no dev running and no fixed port in the config).",
    };
  }
  if (!f.dev.running) {
    if (p.state === "closed") {
      return { id: "port", status: "skip", summary: `Port ${f.port} is free for hooktap dev.` };
    }
    if (p.state === "hooktap") {
      return {
        id: "port",
        status: "fail",
        summary: `Another hooktap dev (in another directory) answers on port ${f.port}, ` +
          `so hooktap dev cannot listen there.`,
        fix:
          `stop that hooktap dev (Ctrl-C in its terminal), or set another \`port\` in ${
            f.command?.config[1] ?? "hooktap.config.ts"
          } here; ` +
          `events sent to port ${f.port} now land in that one's directory`,
      };
    }
    return {
      id: "port",
      status: "fail",
      summary: `Another program answers on port ${f.port}, so hooktap dev cannot listen there.`,
      fix: `stop that program, or set another \`port\` in ${
        f.command?.config[1] ?? "hooktap.config.ts"
      } (and point the tunnel at it)`,
    };
  }
  if (p.state === "hooktap") {
    const mine = f.dev.owner?.run === undefined || f.dev.owner.run === p.run;
    return mine ? { id: "port", status: "ok", summary: `Port ${f.port} answers: it is this hooktap dev.` } : {
      id: "port",
      status: "fail",
      summary: `Port ${f.port} is answered by another hooktap, not this directory's (pid ${
        f.dev.owner!.pid
      }).`,
      fix: "stop the other hooktap dev; events sent to this port land in its directory",
    };
  }
  if (p.state === "other") {
    return {
      id: "port",
      status: "fail",
      summary: `Port ${f.port} answers (HTTP ${p.status}), but not as hooktap.`,
      fix: `another program holds the port: stop it and restart dev (${command(f, ["dev"])})`,
    };
  }
  return {
    id: "port",
    status: "fail",
    summary: `Port ${f.port} does not answer on 127.0.0.1 (${p.error}).`,
    fix: "hooktap dev may be stuck or bound to another interface: restart it",
  };
}

function tunnelCheck(f: DoctorFacts, endpoints: readonly Endpoint[]): Check {
  const port = f.port;
  const hub = hubOrigin(f);
  if (f.tunnels.length === 0 && hub !== undefined) {
    // dev fetches from its hub: senders send to the channel URL, and no tunnel is needed.
    return {
      id: "tunnel",
      status: "ok",
      summary: `No tunnel needed: ${
        f.dev.running ? "dev receives" : "this project receives"
      } through its hub (senders use ${hub}/<endpoint path>).`,
    };
  }
  if (f.tunnels.length === 0) {
    return {
      id: "tunnel",
      status: "warn",
      summary:
        "No tunnel found: neither ngrok's agent API (127.0.0.1:4040) nor a cloudflared quick tunnel answered.",
      fix:
        `senders on the internet cannot reach this machine without one: ngrok http ${
          _knownPort(f) ?? "<dev's port>"
        }  (or cloudflared tunnel --url http://localhost:${_knownPort(f) ?? "<dev's port>"})` +
        (_knownPort(f) === undefined ? " (no port known: dev prints the one it listens on)" : ""),
    };
  }
  const wrong = f.tunnels.filter((t) =>
    port !== undefined && t.localPort !== undefined && t.localPort !== port
  );
  if (wrong.length > 0) {
    const t = wrong[0]!;
    return {
      id: "tunnel",
      status: "fail",
      summary:
        `${t.tool} tunnel ${t.publicUrl} forwards to port ${t.localPort}, but hooktap listens on ${port}.`,
      fix: `restart the tunnel on hooktap's port: ngrok http ${port}`,
    };
  }
  const details = f.tunnels.flatMap((t) => endpoints.map((e) => `${t.publicUrl}${e.path}  (${e.name})`));
  const unknown = f.tunnels.filter((t) => t.localPort === undefined);
  return {
    id: "tunnel",
    status: "ok",
    summary:
      f.tunnels.map((t) => `${t.tool} ${t.publicUrl}${t.localPort ? ` -> port ${t.localPort}` : ""}`).join(
        "; ",
      ) +
      (unknown.length > 0
        ? ` (${unknown[0]!.tool} does not report its local port: make sure it forwards to ${
          port ?? "hooktap's port"
        })`
        : ""),
    details,
  };
}

function hubCheck(f: DoctorFacts): Check | undefined {
  const h = f.hub;
  const configured = f.config.state === "ok" && f.config.config.hub !== undefined;
  if (h === null) {
    return configured
      ? {
        id: "hub",
        status: "warn",
        summary: "The config names a hub, but dev never connected to it here.",
        fix: `start: ${command(f, ["dev"])} (with HOOKTAP_HUB_TOKEN set)`,
      }
      : undefined; // no hub here: no line
  }
  const last = h.lastReceivedAt === null
    ? "nothing received yet"
    : `last received ${ago(h.lastReceivedAt, f.now)}`;
  if (f.dev.running && h.connected) {
    return {
      id: "hub",
      status: "ok",
      summary: `Connected to ${h.url}: ${h.waiting} waiting at the hub, ${last}.`,
    };
  }
  // Not connected: the count is the last dev heard, not what waits now.
  const heard = `${h.waiting} waiting at the hub when dev last heard from it (${ago(h.updatedAt, f.now)})`;
  return {
    id: "hub",
    status: "warn",
    summary: `Not connected to ${h.url}${h.error ? ` (${h.error})` : ""}: ${heard}, ${last}.`,
    fix: f.dev.running && h.tokenRefused !== undefined
      ? h.tokenRefused.fix // dev's own advice: write the new token to <file>, or restart dev with it
      : f.dev.running
      ? "dev keeps retrying; check the hub is up (curl <hub>/) and the token"
      : `events wait at the hub until you run: ${
        f.config.state === "ok" && f.config.config.hub?.url === h.url
          ? command(f, ["dev"])
          : command(f, ["dev", "--hub", h.url])
      } (with HOOKTAP_HUB_TOKEN set)`,
  };
}

function sendersCheck(f: DoctorFacts, endpoints: readonly Endpoint[]): Check {
  const window = `in the last ${f.windowHours} h`;
  if (endpoints.length === 0) {
    // Nothing to judge them against: no endpoint list to name (the hints would offer an empty one).
    return f.unmatched.length === 0
      ? { id: "senders", status: "ok", summary: `No unmatched requests ${window}.` }
      : {
        id: "senders",
        status: "skip",
        summary: `${plural(f.unmatched.length, "unmatched request")} ${window}, but no endpoints to judge ` +
          "them against (the config does not load and no dev runs here).",
        fix: `fix the config (below), then run ${command(f, ["doctor"], f.configFrom === "option")} again`,
      };
  }
  // Judged by the endpoints checked now: a request refused under an earlier config that these accept is
  // no sender's mistake (and a 405 says the methods the path accepts now).
  const { refused, accepted } = judgeUnmatched(f.unmatched, endpoints);
  const earlier = accepted.length === 0 ? [] : [
    `${plural(accepted.length, "earlier unmatched request")} ${window} would be accepted now ` +
    `(refused under an earlier config): not counted`,
  ];
  // Through a hub, senders use its channel URL, not a tunnel's.
  const origin = hubOrigin(f);
  const hints = unmatchedHints(refused, endpoints, origin);
  if (hints.length === 0) {
    return {
      id: "senders",
      status: "ok",
      summary: `No unmatched requests ${window}${
        accepted.length === 0 ? "" : " that the endpoints refuse now"
      }.`,
      ...(earlier.length > 0 ? { details: earlier } : {}),
    };
  }
  // Each hint once, each with its own fix; and how to clear requests that were the user's own tests, which
  // would otherwise keep this check failing for the whole window.
  const clear =
    `your own test requests? They count for ${f.windowHours} h; empty the log (safe while hooktap dev runs): : > .hooktap/unmatched.jsonl`;
  if (hints.length === 1) {
    return {
      id: "senders",
      status: "fail",
      summary: hints[0]!.text,
      fix: hints[0]!.fix,
      details: [clear, ...earlier],
    };
  }
  return {
    id: "senders",
    status: "fail",
    summary: hints.map((h) => h.text).join("\n"),
    fix: "each sender as listed: " + hints.map((h) => `${h.path}: ${h.fix}`).join("; "),
    details: [clear, ...earlier],
  };
}

function eventsCheck(f: DoctorFacts, endpoints: readonly Endpoint[]): Check {
  if (endpoints.length === 0) {
    return {
      id: "events",
      status: "skip",
      summary: f.endpoints.from === "none"
        ? "No endpoints to check (the config does not load and no dev runs here)."
        : "No endpoints to check.",
    };
  }
  const since = f.now.getTime() - f.windowHours * 3600_000;
  const quiet = endpoints.filter((e) => !(f.latest[e.name] && Date.parse(f.latest[e.name]!) >= since));
  const lines = endpoints.map((e) =>
    `${e.name}: ${f.latest[e.name] ? `last event ${ago(f.latest[e.name]!, f.now)}` : "no events yet"}`
  );
  if (quiet.length === 0) return { id: "events", status: "ok", summary: lines.join("; ") };
  const e = quiet[0]!;
  const hub = hubOrigin(f);
  const base = hub ?? f.tunnels[0]?.publicUrl ?? `http://localhost:${_knownPort(f) ?? "<dev's port>"}`;
  const url = `${base}${shownPath(e.path)}`;
  const why = hub !== undefined
    ? "its hub's channel URL"
    : f.tunnels.length > 0
    ? "the current URL (a tunnel restarted since may have a new URL)"
    : "the current URL";
  // A pattern's URL has parts to fill in: no curl to paste with a literal `:provider` (nor `<provider>`).
  const test = url === `${base}${e.path}` && !base.includes("<")
    ? `send a test: curl -X ${e.methods[0]} ${url} -d '{}'`
    : `send a test to it with each <…> filled in`;
  return {
    id: "events",
    status: "warn",
    summary: `No events in the last ${f.windowHours} h for ${quiet.map((q) => q.name).join(", ")} (${
      lines.join("; ")
    }).`,
    fix: `check the sender uses ${why}, ${url}; or ${test}`,
  };
}

/**
 * Events waiting for a forward target: a line only when there are some and nothing listens at the target
 * (the app is down), no dev runs to deliver them, or the config doctor checks does not forward their endpoint
 * to the target they were marked for (a dev started on it keeps them waiting: src/send/resume_scan.ts); while
 * dev runs on a config that forwards to it and the target listens, they are on their way (no line).
 */
function forwardCheck(f: DoctorFacts): Check | undefined {
  const loads = f.config.state !== "error";
  const elsewhere = f.forward.filter((t) => !t.forwarded || !loads);
  const ours = f.forward.filter((t) => t.forwarded && loads);
  const shown = [...ours.filter((t) => !t.listening || !f.dev.running), ...elsewhere];
  if (shown.length === 0) return undefined;
  const lines = shown.map((t) =>
    `${plural(t.count, "event")} of endpoint "${t.endpoint}" ${
      t.count === 1 ? "waits" : "wait"
    } for forward target "${t.target}" (${t.url})` +
    (t.listening ? "" : `: nothing listens there (${t.error ?? "refused"})`)
  );
  const down = shown.filter((t) => !t.listening);
  const fixes = [
    ...(ours.length > 0 && ours.some((t) => shown.includes(t))
      ? [_oursFix(f, ours.filter((t) => shown.includes(t)))]
      : []),
    ...elsewhere.map((t) => _elsewhereFix(f, t)),
  ];
  return {
    id: "forward",
    status: down.length > 0 ? "fail" : "warn",
    summary: lines.join("\n") +
      (!f.dev.running && elsewhere.length === 0 ? "; no hooktap dev runs to deliver them." : ""),
    fix: fixes.join("; "),
  };
}

/**
 * Events given up on (every delivery attempt to their forward target failed): how many, and the command that
 * sends them again (per endpoint, with `--resign` where their signatures need it). No line when none.
 */
function givenUpCheck(f: DoctorFacts): Check | undefined {
  const groups = f.givenUp ?? [];
  if (groups.length === 0) return undefined;
  const n = groups.reduce((sum, g) => sum + g.count, 0);
  const commands = groups.length === 1 || groups.some((g) => g.resign)
    ? groups.map((g) =>
      command(f, ["replay", "--undelivered", "--endpoint", g.endpoint, ...(g.resign ? ["--resign"] : [])])
    )
    : [command(f, ["replay", "--undelivered"])];
  return {
    id: "given-up",
    status: "warn",
    summary: `${plural(n, "event")} ${n === 1 ? "was" : "were"} given up on earlier (every delivery ` +
      `attempt to ${n === 1 ? "its" : "their"} forward target failed)`,
    fix: `once the app is fixed, ${commands.join(" and ")} ${commands.length === 1 ? "sends" : "send"} ${
      n === 1 ? "it" : "them"
    } again`,
  };
}

/** What delivers events waiting for targets the config forwards to: dev (started, or once the app listens). */
function _oursFix(f: DoctorFacts, ours: readonly ForwardFact[]): string {
  const down = ours.filter((t) => !t.listening);
  if (down.length === 0) {
    return `start dev (${command(f, ["dev"])}): it delivers them at start (or send them now: ${
      command(f, ["replay", "--undelivered"])
    })`;
  }
  return `start the app at ${down.map((t) => t.url).join(", ")}; ` +
    (f.dev.running
      ? "the running hooktap dev delivers the waiting events once it listens"
      : `then dev (${command(f, ["dev"])}) delivers the waiting events at start (or ${
        command(f, ["replay", "--undelivered"])
      })`);
}

/**
 * What delivers events marked for a target the checked config does not forward their endpoint to (or a config
 * that does not load): `dev --forward-to` that URL (when the config has the endpoint and loads), or a replay
 * of them to it while no dev runs; never a command carrying a config that does not load.
 */
function _elsewhereFix(f: DoctorFacts, t: ForwardFact): string {
  const name = _configName(f);
  const why = f.config.state === "error"
    ? `${name} does not load, so doctor cannot tell whether it forwards "${t.endpoint}" to ${t.url} ` +
      `(and hooktap dev does not start on it)`
    : `they were marked for ${t.url}, which ${name} does not forward to${
      f.config.state === "ok" && !t.hasEndpoint ? ` (it has no endpoint "${t.endpoint}")` : ""
    }`;
  const replay = suggestCommand(
    ["replay", "--undelivered", "--endpoint", t.endpoint, "--target", t.target, "--to", t.url],
    f.command?.runner ?? "hooktap",
  );
  const dev = f.config.state === "ok" && t.hasEndpoint
    ? `${command(f, ["dev", "--forward-to", t.url])} or `
    : "";
  const first = [
    ...(f.dev.running ? ["stop the running hooktap dev"] : []),
    ...(t.listening ? [] : [`start the app at ${t.url}`]),
  ];
  return `${why}; ${
    first.length > 0 ? `${first.join(" and ")}, then ` : ""
  }deliver them with ${dev}${replay}` +
    ` (run while no hooktap dev runs)`;
}

/** The config doctor checks, named as the user gives it. */
function _configName(f: DoctorFacts): string {
  if (f.config.state === "missing") return "the starter config (no hooktap.config.ts here)";
  return f.command?.config[1] ?? "hooktap.config.ts";
}

/**
 * What to do before any command that runs on the checked config, when it does not load (`undefined` when it
 * does): such commands exit 78, so none is suggested; a file that does not exist is created first.
 */
function _configFirst(f: DoctorFacts): string | undefined {
  if (f.config.state !== "error") return undefined;
  return f.config.absent === true
    ? `${_configName(f)} does not exist: create it first (${
      command(f, ["init", "--yes"])
    }), then start dev on it`
    : `${
      _configName(f)
    } does not load: fix it first (see the config check below); hooktap dev does not start on it`;
}

/** The port dev listens on, when known: the running dev's, the config's, or the starter config's 8787. */
function _knownPort(f: DoctorFacts): number | undefined {
  return f.port ?? (f.config.state === "missing" ? 8787 : undefined);
}

function configCheck(f: DoctorFacts): Check {
  const c = f.config;
  if (c.state === "ok") {
    return {
      id: "config",
      status: "ok",
      summary: `${c.config.file ?? "config"} loads (${plural(c.config.endpoints.length, "endpoint")})${
        f.configFrom === "running" ? ": the config the running dev started with (its --config)" : ""
      }.`,
    };
  }
  if (c.state === "missing") {
    return {
      id: "config",
      status: "warn",
      summary:
        "No hooktap.config.ts here: hooktap dev uses the built-in starter config (POST /webhook on 8787).",
      fix: `write one: ${command(f, ["init", "--yes"], false)}`,
    };
  }
  // The running dev watches its own config file: another one given to --config is neither served nor reloaded.
  const watched = f.devWatches !== false;
  const running = f.endpoints.from === "running"
    ? [
      `the running dev ${
        watched ? "keeps serving its last good config" : "serves its own config, not this file"
      }; the checks above use its endpoints (${
        f.endpoints.list.map((e) => `${e.name} ${e.path}`).join(", ")
      })`,
    ]
    : [];
  if (c.absent === true) {
    return {
      id: "config",
      status: "fail",
      summary: c.message,
      fix: `${_configName(f)} does not exist: create it (${
        command(f, ["init", "--yes"])
      }), or give the path of the config you have`,
    };
  }
  return {
    id: "config",
    status: "fail",
    summary: c.message,
    fix: f.dev.running && watched
      ? "fix the problems listed, then save: the running dev reloads it"
      : f.dev.running
      ? "fix the problems listed, then save (the running dev does not read this file: restart it with " +
        `${command(f, ["dev"])} to use it)`
      : "fix the problems listed, then save (hooktap dev does not start on a config that does not load)",
    details: [...c.issues, ...running],
  };
}

/**
 * Every check, in order, on the facts' endpoints (the running dev's when it says them; `fallback` only for
 * facts gathered without any).
 */
export function runChecks(f: DoctorFacts, fallback: readonly Endpoint[] = []): Check[] {
  const endpoints = f.endpoints.from === "starter" && f.endpoints.list.length === 0
    ? fallback
    : f.endpoints.list;
  return [
    devCheck(f),
    portCheck(f),
    tunnelCheck(f, endpoints),
    ...[hubCheck(f)].filter((c) => c !== undefined),
    sendersCheck(f, endpoints),
    eventsCheck(f, endpoints),
    ...[forwardCheck(f)].filter((c) => c !== undefined),
    ...[givenUpCheck(f)].filter((c) => c !== undefined),
    configCheck(f),
  ];
}

/** Whether all is well (every check ok or skipped). */
export function allWell(checks: readonly Check[]): boolean {
  return checks.every((c) => c.status === "ok" || c.status === "skip");
}
