import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions, host } from "../../cli/spec.ts";

/** Options of `hooktap hub`. */
export const options = defineOptions({
  port: {
    short: "p",
    value: "port",
    description:
      "serve: port to listen on (default 8786: never dev's 8787 nor its inspector's 8788 and up; 0 = any free port)",
  },
  kv: { value: "path", description: "serve: Deno KV file (default .hooktap-hub/hub.sqlite)" },
  host: {
    kind: host(),
    description:
      "serve: interface to bind (default 127.0.0.1; a public hub needs 0.0.0.0 or a reverse proxy)",
  },
  publicUrl: {
    value: "url",
    description: "serve: the address senders reach, that channel URLs are built on",
  },
  adminToken: {
    value: "token",
    description:
      "the admin token: prefer HOOKTAP_HUB_ADMIN_TOKEN (a flag shows in ps); serve without one: the admin API is off",
  },
  cert: { value: "path", description: "serve: TLS certificate (PEM); needs --key" },
  key: { value: "path", description: "serve: TLS private key (PEM); needs --cert" },
  maxBodySize: {
    value: "size",
    description: "serve: largest body stored, 413 above (default 10MiB, at most 64MiB)",
  },
  rateLimit: {
    value: "n",
    description:
      "serve: requests a minute per channel, 429 + Retry-After above (default 12000, bursts of as many; 0 = off)",
  },
  maxChannels: { value: "n", description: "serve: channels the hub holds (default 1000)" },
  maxClients: { value: "n", description: "serve: clients registered per channel (default 32)" },
  maxConnections: {
    value: "n",
    description: "serve: polls held open at once per channel token (default 16)",
  },
  maxChannelBytes: {
    value: "size",
    description: "serve: storage per channel; 507 when full of events not yet acknowledged (default 256MiB)",
  },
  maxBytesInFlight: {
    value: "size",
    description:
      "serve: bytes of all bodies being received at once, 503 + Retry-After above (default 128MiB; at least --max-body-size)",
  },
  maxBytesInFlightPerChannel: {
    value: "size",
    description: "serve: bytes of bodies being received at once for one channel (default 32MiB)",
  },
  maxBytesInFlightPerAddress: {
    value: "size",
    description:
      "serve: bytes of bodies being received at once from one client address (default 64MiB; behind a proxy: all)",
  },
  answerTimeout: {
    value: "duration",
    description:
      "serve: how long a sender waits for a connected client's answer (challenges; default 5s, at most 5m)",
  },
  retention: {
    value: "duration",
    description: "serve: how long an event waits for a client that has not acknowledged it (default 7d)",
  },
  hub: { value: "url", description: "channel, clients, token: the hub's URL (or a channel URL)" },
  channel: { value: "id", description: "clients, token: the channel's id (or give a channel URL to --hub)" },
  token: {
    value: "token",
    description:
      "clients: the channel's token: prefer HOOKTAP_HUB_TOKEN or .hooktap/hub-token (a flag shows in ps); else the admin token",
  },
  json: { description: "channel create, clients, token rotate: print JSON on stdout" },
});

/** `hooktap hub`. */
export const hub = defineCommand({
  name: "hub",
  description:
    "Run your own hub (a stable URL that keeps events while dev is away); manage its channels, clients and tokens",
  arguments: [
    {
      name: "action",
      description: "serve, channel, clients or token",
      required: true,
      choices: ["serve", "channel", "clients", "token"],
    },
    {
      name: "sub",
      description: "channel: create or rm; clients: rm; token: rotate or revoke",
      choices: ["create", "rm", "rotate", "revoke"],
      choicesAfter: { serve: [], channel: ["create", "rm"], clients: ["rm"], token: ["rotate", "revoke"] },
    },
    { name: "name", description: "channel rm: the channel's id; clients rm: the client's name" },
  ],
  options,
  after:
    "\nTokens go in the environment or a file, never on a command line (`ps` shows it to every user):\n" +
    '  export HOOKTAP_HUB_ADMIN_TOKEN="$(openssl rand -hex 32)"\n' +
    "  hooktap hub serve\n" +
    "  hooktap hub channel create --hub https://hub.example.com\n" +
    "  (umask 077; mkdir -p .hooktap && echo htk_... > .hooktap/hub-token)   # or HOOKTAP_HUB_TOKEN\n" +
    "  hooktap dev --hub https://hub.example.com/c/<id>\n" +
    "  hooktap hub clients --hub https://hub.example.com --channel <id>\n" +
    "  hooktap hub clients rm alice-laptop-shop --hub https://hub.example.com/c/<id>\n" +
    "  hooktap hub token rotate --hub https://hub.example.com/c/<id>\n" +
    "  hooktap hub channel rm <id> --hub https://hub.example.com\n" +
    "\nSee docs/hub.md.\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/hub/run.ts"),
});
