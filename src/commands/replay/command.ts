import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions, duration, path, rate, url } from "../../cli/spec.ts";
import { FILTER_OPTIONS } from "../_shared/filters.ts";
import { SEND_OPTIONS } from "../_shared/send_options.ts";

const { endpoint, since, until, grep, where, provider, type, verdict, filterMethod, hasHeader } =
  FILTER_OPTIONS;

/** Options of `hooktap replay`. */
export const options = defineOptions({
  to: {
    short: "t",
    kind: url(),
    description:
      "where to send it (default: where dev forwarded it, else the endpoint's forward target, path parameters filled in); the original query string is added when it has none",
  },
  header: SEND_OPTIONS.header,
  method: {
    short: "X",
    value: "method",
    description: "send with this method instead of the original",
    complete: "method",
  },
  resign: {
    description:
      "sign afresh with the endpoint's secret and the current time (Stripe, Slack, Standard Webhooks, ...)",
  },
  resignInvalid: {
    description:
      "re-sign even events whose signature was invalid when received (--resign refuses them: it would make a badly signed request pass)",
  },
  bodyFile: {
    kind: path("file"),
    description: "send this file's bytes as the body (re-signed when a secret is known)",
  },
  set: SEND_OPTIONS.set,
  setNew: SEND_OPTIONS.setNew,
  config: { short: "c", kind: path(), description: "config file holding the endpoint's secret" },
  timeout: { kind: duration(), description: "longest wait for the answer", default: "30s" },
  json: { description: "print the result as one JSON object on stdout (one per event in bulk)" },
  undelivered: {
    description:
      "send every forwarded event that was never delivered (instead of one event id), oldest first",
  },
  insecure: { description: "accept a self-signed https certificate" },
  target: {
    value: "name",
    description:
      "with an event id: send it to this forward target of its endpoint; with --undelivered: only deliveries " +
      "to this target (its name, as `dev` and `logs` show it)",
  },
  endpoint,
  since,
  until,
  grep,
  where,
  provider,
  type,
  verdict,
  filterMethod,
  hasHeader,
  rate: { kind: rate(), description: "bulk: send at most N events per second (10 or 10/s)" },
});

/** `hooktap replay`. */
export const replay = defineCommand({
  name: "replay",
  description: "Send a stored event again to a URL: same method, headers and exact body bytes",
  arguments: [{
    name: "event-id",
    description: "the event's id, or any unique prefix of it (none: every event the filters match)",
    required: false,
    complete: "event-id",
  }],
  options,
  after:
    "\nEvery way of sending (one id, bulk, --undelivered) takes the same options: -X, -H, --body-file,\n" +
    "--set, --resign and the filters; each send is recorded in .hooktap/deliveries.jsonl.\n" +
    "\nWithout an id, sends every event the filters match, in arrival order (bulk replay):\n" +
    "a progress bar on a terminal, a summary at the end; Ctrl-C stops after the send in flight.\n" +
    "\nExit status: 0 when the target answers 2xx (every time), 1 otherwise, 130 when stopped.\n" +
    "\nExamples:\n  hooktap replay evt_20240501_01HXA5B7 --to http://localhost:3000/webhooks/github\n" +
    '  hooktap replay 01HXA5 --to http://localhost:3000/hook -H "Authorization: Bearer dev"\n' +
    "  hooktap replay 01HXA5 --to https://staging.example.com/hook --json | jq .status\n" +
    "  hooktap replay 01HXA5 --to http://localhost:3000/stripe --resign\n" +
    "  hooktap replay 01HXA5 --to http://localhost:3000/stripe --set data.object.amount=5000\n" +
    "  hooktap replay 01HXA5   (to where dev forwarded it, else the endpoint's forward target)\n" +
    "  hooktap replay --undelivered --endpoint stripe --resign\n" +
    "  hooktap replay --endpoint github --since 2h --to http://localhost:3000/hook --rate 5/s\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/replay/run.ts"),
});
