/**
 * `hooktap hub serve` and `hooktap hub channel create`.
 * @module
 */
import { unreachable } from "../../hub/unreachable.ts";
import { resolvePath } from "../../text/path.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { describeError, HooktapError, NetworkError, ServeError, UsageError } from "../../errors.ts";
import { type PreparedKvFile, prepareKvFile, undoKvFile } from "../../hub/kv_file.ts";
import { publicBase } from "../../hub/public_url.ts";
import { type CommandContext, parsePort, storeOf } from "../_shared/context.ts";
import { limitsFrom, limitsLine } from "./_limits.ts";
import { hubBanner } from "./_banner.ts";
import { DEFAULT_HUB_PORT, DEFAULT_LIMITS } from "../../hub/limits.ts";
import { channelAction, target } from "./_channel.ts";
import { safeLine } from "../../text/sanitize.ts";
import { ADMIN_TOKEN_ENV, HUB_TOKEN_ENV, tokenFlagWarning, tokenFromEnv } from "../../hub/token_source.ts";
import { invokedAs } from "../../text/command_line.ts";

const ADMIN_ENV = ADMIN_TOKEN_ENV;

function refuse(opts: Record<string, unknown>, keys: string[], where: string): void {
  for (const key of keys) {
    if (opts[key] !== undefined) {
      const flag = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      throw new UsageError(
        `--${flag} does not apply to \`${invokedAs()} hub ${where}\`. Run \`${invokedAs()} hub --help\`.`,
      );
    }
  }
}

/** `hooktap hub`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const [action = "", sub] = input.args;
  const opts = input.options;
  for (const [flag, value] of [["--admin-token", opts.adminToken], ["--token", opts.token]] as const) {
    // A token is sent as `Authorization: Bearer <token>`: an empty one, or one with a space, never matches.
    if (value !== undefined && !/^\S+$/.test(value)) {
      throw new UsageError(
        `${flag} ${value === "" ? "is empty" : "holds a space"}: a token is one word, and this one could ` +
          `never be presented. Give the token itself (an unset variable in ${flag} "$VAR" expands to ` +
          `nothing), or leave ${flag} out.`,
      );
    }
  }
  const adminToken = opts.adminToken ?? tokenFromEnv(ADMIN_ENV);
  const warn = ctx.output.errColors.yellow;
  if (opts.adminToken !== undefined) {
    ctx.output.err(warn(`warning: ${tokenFlagWarning("--admin-token", ADMIN_ENV)}\n`));
  }
  if (opts.token !== undefined) {
    ctx.output.err(
      warn(`warning: ${tokenFlagWarning("--token", `${HUB_TOKEN_ENV} or .hooktap/hub-token`)}\n`),
    );
  }
  if (action === "serve") {
    if (sub !== undefined || input.args[2] !== undefined) {
      throw new UsageError(`\`${invokedAs()} hub serve\` takes no "${sub ?? input.args[2]}".`);
    }
    return await _serve(ctx, opts, adminToken);
  }
  refuse(opts, [
    "port",
    "kv",
    "host",
    "publicUrl",
    "cert",
    "key",
    "maxBodySize",
    "rateLimit",
    "maxChannels",
    "maxClients",
    "maxConnections",
    "maxChannelBytes",
    "maxBytesInFlight",
    "maxBytesInFlightPerChannel",
    "maxBytesInFlightPerAddress",
    "retention",
    "answerTimeout",
  ], action);
  const where = sub === undefined ? action : `${action} ${sub}`;
  // --json where something is printed (channel create, clients, token rotate); --token for clients only.
  const prints = (action === "channel" && sub === "create") || (action === "clients" && sub === undefined) ||
    (action === "token" && sub === "rotate");
  if (!prints) refuse(opts, ["json"], where);
  if (action !== "clients") refuse(opts, ["token"], where);
  if (!(action === "channel" && sub === "create")) {
    return channelAction(ctx, {
      action,
      sub,
      name: input.args[2],
      adminToken,
      dataDir: storeOf(ctx).dir,
      opts,
    });
  }
  return await _createChannel(ctx, input, adminToken);
}

type Options = Input<typeof options>["options"];

/** `hooktap hub serve`: checks its options, prepares the KV file, serves until Ctrl-C. */
async function _serve(ctx: CommandContext, opts: Options, adminToken: string | undefined): Promise<void> {
  refuse(opts, ["hub", "json", "channel", "token"], "serve");
  const limits = limitsFrom(opts);
  if ((opts.cert === undefined) !== (opts.key === undefined)) {
    throw new UsageError("TLS needs both --cert and --key (PEM files).");
  }
  const port = parsePort(opts.port ?? String(DEFAULT_HUB_PORT));
  const kvPath = resolvePath(ctx.cwd, opts.kv ?? ".hooktap-hub/hub.sqlite");
  let publicUrl: string | undefined;
  if (opts.publicUrl !== undefined) {
    try {
      publicUrl = publicBase(opts.publicUrl);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  let tls: { cert: string; key: string } | undefined;
  if (opts.cert !== undefined && opts.key !== undefined) {
    try {
      tls = {
        cert: await Deno.readTextFile(resolvePath(ctx.cwd, opts.cert)),
        key: await Deno.readTextFile(resolvePath(ctx.cwd, opts.key)),
      };
    } catch (error) {
      throw new UsageError(`Cannot read the TLS certificate or key: ${(error as Error).message}`);
    }
  }
  let prepared: PreparedKvFile;
  try {
    // Private: the directory 0700 when created here (the default one always), the files 0600.
    prepared = await prepareKvFile(kvPath, { tighten: opts.kv === undefined });
  } catch (error) {
    // Deno refusing a permission is said as such by main.ts (exit 77, which flag to add).
    if (error instanceof Deno.errors.NotCapable) throw error;
    throw new ServeError(
      `Cannot create the hub's KV file ${kvPath}: ${describeError(error)}. Pick another with --kv.`,
      { cause: error },
    );
  }
  const { serveHub } = await import("../../hub/serve.ts");
  const c = ctx.output.errColors;
  const hub = await serveHub({
    onNotice: (message) => ctx.output.err(c.yellow(`${message}\n`)),
    hostname: opts.host ?? "127.0.0.1",
    port,
    kvPath,
    adminToken,
    publicUrl,
    limits,
    ...(tls ? { tls } : {}),
  }).catch(async (error) => {
    // Not started (the port taken, the store unusable): what this start created goes (a new --kv directory).
    await undoKvFile(kvPath, prepared).catch(() => {});
    throw error;
  });
  ctx.output.err(hubBanner({
    url: hub.url,
    hostname: hub.hostname,
    port: hub.port,
    scheme: tls ? "https" : "http",
    kvPath,
    publicUrl,
    admin: adminToken !== undefined,
    invokedAs: invokedAs(),
    adminEnv: ADMIN_ENV,
    limits: limitsLine({ ...DEFAULT_LIMITS, ...limits }),
    warn: c.yellow,
  }));
  if (ctx.signal.aborted) await hub.stop();
  ctx.signal.addEventListener("abort", () => void hub.stop(), { once: true });
  await hub.finished;
  ctx.output.err("hub stopped.\n");
}

/** `hooktap hub channel create`: asks the hub's admin API for a channel, prints its URL and token. */
async function _createChannel(
  ctx: CommandContext,
  input: Input<typeof options>,
  adminToken: string | undefined,
): Promise<void> {
  const opts = input.options;
  refuse(opts, ["channel", "token"], "channel create");
  if (input.args[2] !== undefined) {
    throw new UsageError(`\`${invokedAs()} hub channel create\` takes no "${input.args[2]}".`);
  }
  // The hub's URL as every other hub command reads it: a path kept (a hub behind a proxy under /hub).
  const { base } = target(opts.hub, undefined, false, `${invokedAs()} hub channel create --hub URL`);
  if (adminToken === undefined) {
    throw new UsageError(`Give the hub's admin token: set ${ADMIN_ENV}.`);
  }
  let response: Response;
  try {
    response = await fetch(`${base}/api/channels`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}` },
    });
  } catch (error) {
    throw new NetworkError(unreachable(base, error), {
      cause: error,
    });
  }
  if (response.status !== 201) {
    const why = safeLine((await response.text()).trim().slice(0, 500));
    throw new HooktapError(`The hub refused to create a channel (${response.status}): ${why}`);
  }
  // What a hub answers is printed: a hub that answers otherwise than a hub does is said so, never echoed.
  const created = await response.json().catch(() => null) as { url?: unknown; token?: unknown } | null;
  const { url, token } = created ?? {};
  if (
    typeof url !== "string" || typeof token !== "string" || !/^https?:\/\/\S+$/.test(url) ||
    safeLine(url) !== url || !/^htk_[A-Za-z0-9_-]+$/.test(token)
  ) {
    throw new HooktapError(`${base} answered, but not as a hooktap hub does: no channel URL and token.`);
  }
  if (opts.json) ctx.output.out(JSON.stringify({ url, token }) + "\n");
  else {
    ctx.output.out(`${url}\n${token}\n`);
    ctx.output.err(
      "Channel created: senders use <url>/<endpoint path>. The token (second line, shown once: keep it) goes\n" +
        "to each dev that connects, never on a command line (`ps` shows those to every user): save it in\n" +
        `.hooktap/hub-token, readable by you only (chmod 600), or set ${HUB_TOKEN_ENV}; then run\n` +
        `  ${invokedAs()} dev --hub ${url}\n`,
    );
  }
}
