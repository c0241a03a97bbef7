import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap doctor`. */
export const options = defineOptions({
  config: { short: "c", value: "path", description: "config file" },
  json: { description: 'print {"ok":..., "checks":[...]} on stdout, nothing else' },
});

/** `hooktap doctor`. */
export const doctor = defineCommand({
  name: "doctor",
  description:
    "Find why no webhook arrives: dev running, port, tunnel and its port, senders' URLs and methods, recent events, config",
  options,
  after: "\nExit status: 0 when all is well, 1 otherwise.\n\nExamples:\n  hooktap doctor\n" +
    "  hooktap doctor --json | jq '.checks[] | select(.status != \"ok\")'\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/doctor/run.ts"),
});
