import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions, integer, path } from "../../cli/spec.ts";
import { FILTER_OPTIONS } from "../_shared/filters.ts";

/** Options of `hooktap logs`. */
export const options = defineOptions({
  limit: {
    short: "n",
    kind: integer({ placeholder: "count" }),
    description: "how many events to show",
    default: "20",
  },
  ...FILTER_OPTIONS,
  unmatched: {
    short: "u",
    description: "show requests that matched no endpoint (404/405, .hooktap/unmatched.jsonl) with hints",
  },
  count: {
    description: "print how many events match over the whole log, nothing else",
    conflicts: ["follow", "limit"], // it counts the whole log: -n would be ignored
  },
  follow: { short: "f", description: "keep printing new events as they arrive, until Ctrl-C" },
  json: { description: "print the full stored records as JSON Lines on stdout, nothing else" },
  config: {
    short: "c",
    kind: path(),
    description: "config file (used for the hint when there are no events)",
  },
});

/** `hooktap logs`. */
export const logs = defineCommand({
  name: "logs",
  description:
    "List the newest stored events, oldest of them first (reads .hooktap/events.jsonl from its end)",
  options,
  after: "\nExamples:\n  hooktap logs\n  hooktap logs -n 50 --endpoint stripe --since 2h\n" +
    "  hooktap logs --grep customer_42 --where action=opened --has-header X-GitHub-Event=push\n" +
    "  hooktap logs --count --endpoint stripe --since 1d\n  hooktap logs --provider stripe --verdict invalid\n" +
    "  hooktap logs --follow\n  hooktap logs --unmatched\n  hooktap logs --json | jq -r .id\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/logs/run.ts"),
});
