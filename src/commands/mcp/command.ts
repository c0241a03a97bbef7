import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap mcp`. */
export const options = defineOptions({
  config: { short: "c", value: "path", description: "config file (endpoints, secrets, forward targets)" },
});

/** `hooktap mcp`. */
export const mcp = defineCommand({
  name: "mcp",
  description:
    "Serve this project to a coding agent (Claude Code, Cursor, VS Code): an MCP server on stdio with tools to " +
    "search, read and wait for events, trigger and replay",
  options,
  after: "\nStarted by the agent, in the project directory; it speaks MCP on stdin/stdout. Tools:\n" +
    "search_events, get_event, wait_for_event, trigger, replay, list_endpoints, doctor, export_event,\n" +
    "list_triggers. Sends only to loopback, the config's forward targets and mcp.allowSendTo.\n" +
    "Setup for each agent: docs/agents.md.\n" +
    "\nExamples:\n  claude mcp add hooktap -- npx hooktap mcp\n  hooktap mcp --config ./hooktap.config.ts\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/mcp/run.ts"),
});
