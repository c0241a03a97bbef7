import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap ui`. */
export const options = defineOptions({
  port: {
    short: "p",
    value: "port",
    description:
      "serve on this port of 127.0.0.1 (default: the config's ui.port, else the receiver's port + 1)",
  },
  open: { description: "open the inspector in your browser" },
  config: { short: "c", value: "path", description: "config file (for the ports and endpoint names)" },
});

/** `hooktap ui`. */
export const ui = defineCommand({
  name: "ui",
  description: "Browse and replay the stored events in the web inspector, without receiving",
  options,
  after: "\nExamples:\n  hooktap ui --open\n  hooktap ui --port 9001\n" +
    "\nWhile `hooktap dev` runs it serves the same inspector itself (see its banner).\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/ui/run.ts"),
});
