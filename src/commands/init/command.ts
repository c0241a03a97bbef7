import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap init`. */
export const options = defineOptions({
  yes: { short: "y", description: "write the starter config without asking (port 8787, POST /webhook)" },
  force: { short: "f", description: "overwrite an existing config file" },
  config: {
    short: "c",
    value: "path",
    description: "where to write the config",
    default: "hooktap.config.ts",
  },
});

/** `hooktap init`. */
export const init = defineCommand({
  name: "init",
  description: "Write a hooktap.config.ts (asks in a terminal; --yes takes the starter config)",
  options,
  after: "\nExamples:\n  hooktap init --yes\n  hooktap init --config webhooks/hooktap.config.ts --force\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/init/run.ts"),
});
