import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap hub`. */
export const options = defineOptions({
  port: {
    short: "p",
    value: "port",
    description: "serve: port to listen on (default 8788; 0 = any free port)",
  },
  kv: { value: "path", description: "serve: Deno KV file (default .hooktap-hub/hub.sqlite)" },
  host: {
    value: "host",
    description:
      "serve: interface to bind (default 127.0.0.1; a public hub needs 0.0.0.0 or a reverse proxy)",
  },
  publicUrl: {
    value: "url",
    description: "serve: the address senders reach, that channel URLs are built on",
  },
  adminToken: {
    value: "token",
    description: "the admin token (or HOOKTAP_HUB_ADMIN_TOKEN); serve without one: the admin API is off",
  },
  cert: { value: "path", description: "serve: TLS certificate (PEM); needs --key" },
  key: { value: "path", description: "serve: TLS private key (PEM); needs --cert" },
  hub: { value: "url", description: "channel create: the hub's URL" },
  json: { description: 'channel create: print {"url":...,"token":...} on stdout' },
});

/** `hooktap hub`. */
export const hub = defineCommand({
  name: "hub",
  description:
    "Run your own hub (a stable URL that keeps events while dev is away), or create a channel on one",
  arguments: [
    { name: "action", description: "serve, or channel", required: true, choices: ["serve", "channel"] },
    { name: "sub", description: "after channel: create", choices: ["create"] },
  ],
  options,
  after: '\nExamples:\n  hooktap hub serve --admin-token "$(openssl rand -hex 32)"\n' +
    "  hooktap hub channel create --hub https://hub.example.com --admin-token ...\n" +
    "  hooktap dev --hub https://hub.example.com/c/<id> --hub-token htk_...\n" +
    "\nSee docs/hub.md.\n",
  load: () => import("./run.ts"),
});
