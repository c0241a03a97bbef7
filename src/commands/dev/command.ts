import { lazyImport } from "../../cli/lazy.ts";
import { choice, defineCommand, defineOptions, host, path, port, url } from "../../cli/spec.ts";

/** Options of `hooktap dev`. */
export const options = defineOptions({
  config: { short: "c", kind: path(), description: "config file" },
  port: {
    short: "p",
    kind: port(),
    description: "listen on this port instead of the config's (0 = any free port)",
  },
  host: {
    kind: host(),
    description: "interface to bind; anything but loopback exposes hooktap to your network",
    default: "127.0.0.1",
  },
  json: {
    description:
      'print a ready object ({"type":"ready",...}) then one JSON object per request on stdout (the banner still goes to stderr)',
  },
  readyFile: {
    kind: path(),
    description: "write the ready object (port, endpoint URLs, data dir, pid) to this file once listening",
  },
  quiet: { short: "q", description: "print no line per request" },
  forwardTo: {
    kind: url(),
    description:
      "deliver every endpoint's events to your app at this URL (replaces the config's targets for this run)",
  },
  forwardEvents: {
    value: "types",
    description:
      "with --forward-to: only events of these types, comma-separated, each exact or a prefix (push,pull_request)",
  },
  forwardMode: {
    kind: choice(["queue", "relay"], "mode"),
    description:
      "with --forward-to: queue (the default) answers the sender at once and delivers after (retried); relay " +
      "answers with your app's answer",
  },
  skipPending: {
    description: "do not deliver the events the last run left undelivered (replay --undelivered sends them)",
  },
  uiPort: {
    kind: port(),
    description: "serve the live inspector on this port of 127.0.0.1 (default: the receiver's port + 1)",
  },
  hub: {
    kind: url(),
    description:
      "receive through a hub channel (https://hub.example.com/c/<id>) instead of a tunnel (docs/hub.md)",
  },
  hubToken: {
    value: "token",
    description:
      "the channel's token: prefer HOOKTAP_HUB_TOKEN or .hooktap/hub-token (chmod 600); a flag shows in ps",
  },
  hubClient: {
    value: "name",
    description:
      "this client's name at the hub: each name gets every event (default: <host name>-<project directory>)",
  },
  ui: {
    negatable: true,
    description:
      "do not serve the live inspector (it runs by default; ui: false in the config also turns it off)",
  },
});

/** `hooktap dev`. */
export const dev = defineCommand({
  name: "dev",
  description: "Receive webhooks: listen on the configured port and store every matched request",
  options,
  after: "\nExamples:\n  hooktap dev\n  hooktap dev --port 9000\n  hooktap dev --json | jq .id\n" +
    "  hooktap dev --forward-to http://localhost:3000/webhooks/github\n" +
    "  hooktap dev --forward-to http://localhost:3000/hook --forward-mode relay\n" +
    "  hooktap dev --forward-to http://localhost:3000/hook --forward-events push,pull_request\n" +
    "  hooktap dev --hub https://hub.example.com/c/<id>   # token in HOOKTAP_HUB_TOKEN\n" +
    "  # in another terminal: ngrok http 8787\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/dev/run.ts"),
});
