/**
 * `list_endpoints`: the endpoints of the project's config and their forward
 * targets, whether `hooktap dev` runs (and each endpoint's URL on it), and
 * where the `trigger` and `replay` tools may send. Secrets are never shown,
 * only whether one is set.
 * @module
 */
import { z } from "zod";
import { expandTarget } from "../route/expand.ts";
import { configOf, devOf, type McpContext } from "./context.ts";
import { answer } from "./result.ts";
import { defineTool } from "./tool.ts";

const ENDPOINT_SCHEMA = z.object({
  name: z.string(),
  path: z.string().describe("an exact path or a URL pattern (/hooks/:provider)"),
  methods: z.array(z.string()),
  provider: z.string().optional().describe("the sender it declares (else detected per request)"),
  hasSecret: z.boolean().describe("a signing secret is set (never shown)"),
  enforce: z.boolean().describe("answers 401 to a bad signature"),
  url: z.string().optional().describe("its URL on the running dev (exact paths only)"),
  targets: z.array(z.object({
    name: z.string(),
    to: z.string(),
    mode: z.enum(["queue", "relay"]),
  })).describe("forward targets, in config order; the first is replay's default"),
});

/** The tool. */
export function listEndpoints(ctx: McpContext) {
  return defineTool({
    name: "list_endpoints",
    title: "Endpoints and forward targets",
    description:
      "The project's config: each endpoint (name, path, methods, provider, whether a secret is set, its URL " +
      "on the running dev) and its forward targets; whether `hooktap dev` runs and on which port; and the " +
      "URLs besides loopback and the forward targets that trigger and replay may send to (mcp.allowSendTo).",
    input: {},
    output: {
      directory: z.string().describe("the project directory this server works on"),
      config: z.string().nullable().describe("the config file, or null: none (the starter's defaults apply)"),
      dev: z.object({ running: z.boolean(), port: z.number().int().optional(), url: z.string().optional() }),
      endpoints: z.array(ENDPOINT_SCHEMA),
      allowSendTo: z.array(z.string()),
    },
    readOnly: true,
    async run() {
      const config = await configOf(ctx);
      const dev = await devOf(ctx);
      const base = dev === undefined ? undefined : `http://127.0.0.1:${dev.port}`;
      const endpoints = (config?.endpoints ?? []).map((e) => {
        const signing = e.signing;
        const exact = !/[:*(]/.test(e.path);
        return {
          name: e.name,
          path: e.path,
          methods: [...e.methods],
          ...(signing?.provider !== undefined ? { provider: signing.provider } : {}),
          hasSecret: (signing?.secrets.length ?? 0) > 0,
          enforce: signing?.enforce ?? false,
          ...(base !== undefined && exact ? { url: `${base}${expandTarget(e.path, {})}` } : {}),
          targets: (e.targets ?? (e.forward ? [e.forward] : [])).map((t) => ({
            name: t.name,
            to: t.to,
            mode: t.mode,
          })),
        };
      });
      const structured = {
        directory: ctx.cwd,
        config: config?.file ?? null,
        dev: dev === undefined ? { running: false } : { running: true, port: dev.port, url: base! },
        endpoints,
        allowSendTo: [...(config?.mcp?.allowSendTo ?? [])],
      };
      const lines = endpoints.map((e) =>
        `${e.name}: ${e.methods.join(",")} ${e.path}${e.provider ? ` (${e.provider})` : ""}` +
        `${e.hasSecret ? ", secret set" : ""}` +
        (e.targets.length > 0 ? ` → ${e.targets.map((t) => t.to).join(", ")}` : "")
      );
      const head = config === null
        ? `No hooktap.config.ts in ${ctx.cwd}: \`hooktap init\` writes one (dev starts with POST /webhook).`
        : `${config.file}, ${endpoints.length} endpoint${endpoints.length === 1 ? "" : "s"}; dev ` +
          (dev === undefined ? "is not running" : `runs on ${base}`) + `:\n${lines.join("\n")}`;
      return answer(structured, head);
    },
  });
}
