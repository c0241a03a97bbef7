/**
 * `hooktap hub channel rm`, `hub clients [rm]` and `hub token rotate|revoke`:
 * calls to a hub's API, with the admin token or the channel's token.
 * @module
 */
import { unreachable } from "../../hub/unreachable.ts";
import { HooktapError, NetworkError, UsageError } from "../../errors.ts";
import type { WireClients } from "../../hub/wire.ts";
import { CLIENT_NAME } from "../../hub/team.ts";
import { ADMIN_TOKEN_ENV, HUB_TOKEN_ENV as TOKEN_ENV, tokenFromFile } from "../../hub/token_source.ts";
import { safeLine } from "../../text/sanitize.ts";
import type { CommandContext } from "../_shared/context.ts";
import { invokedAs } from "../../text/command_line.ts";

const ID = /^[A-Za-z0-9_-]{22}$/;

/** What the action was given. */
export interface ChannelActionInput {
  action: string;
  sub: string | undefined;
  name: string | undefined;
  adminToken: string | undefined;
  /** The data directory, where `hub-token` may hold the channel's token. */
  dataDir: string;
  opts: {
    hub?: string | undefined;
    channel?: string | undefined;
    token?: string | undefined;
    json?: boolean | undefined;
  };
}

function envToken(): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: TOKEN_ENV }).state !== "granted") return undefined;
  return Deno.env.get(TOKEN_ENV) || undefined;
}

/**
 * The hub's base URL (a path kept: a hub behind a proxy under `/hub`) and the channel id, from `--hub` (a hub
 * or a channel URL) and `--channel`.
 */
export function target(
  hub: string | undefined,
  channel: string | undefined,
  needChannel: boolean,
  usage: string,
) {
  if (hub === undefined) throw new UsageError(`Give the hub's URL: ${usage}.`);
  let url: URL;
  try {
    url = new URL(hub);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
  } catch {
    throw new UsageError(`--hub must be the hub's URL like https://hub.example.com, got "${hub}".`);
  }
  const inUrl = /^(.*)\/c\/([A-Za-z0-9_-]{22})\/?$/.exec(url.pathname);
  const base = `${url.origin}${inUrl ? inUrl[1] : url.pathname.replace(/\/+$/, "")}`;
  const id = channel ?? inUrl?.[2];
  if (id !== undefined && !ID.test(id)) {
    throw new UsageError(`--channel must be a channel id (22 letters, digits, - or _), got "${id}".`);
  }
  if (needChannel && id === undefined) {
    throw new UsageError(`Say which channel: --channel ID, or a channel URL as --hub (${usage}).`);
  }
  return { base, id };
}

async function call(base: string, path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(`${base}${path}`, init);
  } catch (error) {
    throw new NetworkError(unreachable(base, error), { cause: error });
  }
}

async function refusal(response: Response, what: string): Promise<never> {
  const why = safeLine((await response.text()).trim().slice(0, 500));
  throw new HooktapError(`The hub refused to ${what} (${response.status}): ${why}`);
}

/** Runs the action. */
export async function channelAction(ctx: CommandContext, input: ChannelActionInput): Promise<void> {
  const { action, sub, name, opts } = input;
  const out = ctx.output;
  const admin = () => {
    if (input.adminToken === undefined) {
      throw new UsageError(`Give the hub's admin token: set ${ADMIN_TOKEN_ENV}.`);
    }
    return { authorization: `Bearer ${input.adminToken}` };
  };
  if (action === "channel") {
    if (sub !== "rm") {
      throw new UsageError(
        `Say what to do with a channel: ${invokedAs()} hub channel create --hub URL, or ${invokedAs()} hub channel rm ID --hub URL.`,
      );
    }
    if (name !== undefined && opts.channel !== undefined && name !== opts.channel) {
      throw new UsageError(
        `Two channels given: "${safeLine(name)}" and --channel ${safeLine(opts.channel)}. Give one.`,
      );
    }
    const { base, id } = target(
      opts.hub,
      name ?? opts.channel,
      true,
      `${invokedAs()} hub channel rm ID --hub URL`,
    );
    const r = await call(base, `/api/channels/${id}`, { method: "DELETE", headers: admin() });
    if (!r.ok) return refusal(r, `delete channel ${id}`);
    await r.body?.cancel();
    out.err(`Channel ${id} deleted, with every event and client it held. Its URL now answers 404.\n`);
    return;
  }
  if (action === "token") {
    if (sub !== "rotate" && sub !== "revoke") {
      throw new UsageError(`Say rotate or revoke: ${invokedAs()} hub token rotate --hub URL --channel ID.`);
    }
    if (name !== undefined) throw new UsageError(`\`${invokedAs()} hub token ${sub}\` takes no "${name}".`);
    const { base, id } = target(
      opts.hub,
      opts.channel,
      true,
      `${invokedAs()} hub token ${sub} --hub URL --channel ID`,
    );
    const r = await call(base, `/api/channels/${id}/token/${sub}`, { method: "POST", headers: admin() });
    if (!r.ok) return refusal(r, `${sub} the token of channel ${id}`);
    const body = await r.json() as { token?: string };
    if (sub === "revoke") {
      out.err(
        `The token of channel ${id} is revoked: every client is refused, held connections too. ` +
          `Senders still reach the channel; \`${invokedAs()} hub token rotate\` gives a new token.\n`,
      );
      return;
    }
    if (typeof body.token !== "string" || !/^htk_[A-Za-z0-9_-]+$/.test(body.token)) {
      throw new HooktapError("The hub answered without a token.");
    }
    if (opts.json) out.out(JSON.stringify({ channel: id, token: body.token }) + "\n");
    else {
      out.out(`${body.token}\n`);
      out.err(
        "New token. The old one is refused from now on, held connections too: give this one to every " +
          "client (in .hooktap/hub-token or HOOKTAP_HUB_TOKEN, never on a command line). It is shown once.\n",
      );
    }
    return;
  }
  // clients
  if (sub !== undefined && sub !== "rm") {
    throw new UsageError(
      `\`${invokedAs()} hub clients\` lists them; \`${invokedAs()} hub clients rm NAME\` removes one (not "${sub}").`,
    );
  }
  const { base, id } = target(
    opts.hub,
    opts.channel,
    true,
    `${invokedAs()} hub clients --hub URL --channel ID`,
  );
  const token = opts.token ?? envToken() ?? await tokenFromFile(input.dataDir) ?? input.adminToken;
  if (token === undefined) {
    throw new UsageError(
      `Give the channel's token (${TOKEN_ENV} or .hooktap/hub-token) or the admin token (${ADMIN_TOKEN_ENV}).`,
    );
  }
  const auth = { authorization: `Bearer ${token}` };
  if (sub === "rm") {
    if (name === undefined) {
      throw new UsageError(`Say which client: ${invokedAs()} hub clients rm NAME --hub URL.`);
    }
    // Not sent as is: ".." in the path would be resolved away (a DELETE of another path than the client's).
    if (!CLIENT_NAME.test(name)) {
      throw new UsageError(
        `"${
          safeLine(name).slice(0, 80)
        }" is not a client name (letters, digits, ".", "_", "@" or "-", at most ` +
          `64, starting with a letter or digit): \`${invokedAs()} hub clients\` lists the channel's clients.`,
      );
    }
    const r = await call(base, `/api/channels/${id}/clients/${encodeURIComponent(name)}`, {
      method: "DELETE",
      headers: auth,
    });
    if (!r.ok) return refusal(r, `remove client ${name}`);
    await r.body?.cancel();
    out.err(
      `Client ${safeLine(name)} removed: it no longer keeps events at the hub. ` +
        "If it connects again it registers anew.\n",
    );
    return;
  }
  if (name !== undefined) {
    throw new UsageError(`\`${invokedAs()} hub clients\` takes no "${name}" (rm NAME removes one).`);
  }
  const r = await call(base, `/api/channels/${id}/clients`, { headers: auth });
  if (!r.ok) return refusal(r, "list the clients");
  const { clients } = await r.json() as WireClients;
  if (opts.json) {
    for (const c of clients) out.out(JSON.stringify(c) + "\n");
    return;
  }
  if (clients.length === 0) {
    out.err("No client has connected to this channel yet.\n");
    return;
  }
  const rows = clients.map((c) => [
    safeLine(c.name),
    safeLine(String(c.lastSeen)),
    safeLine(String(c.waiting)),
    c.pinning ? "" : "away longer than retention: keeps nothing",
  ]);
  const head = ["NAME", "LAST SEEN", "WAITING", ""];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [head, ...rows]) {
    out.out(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd() + "\n");
  }
}
