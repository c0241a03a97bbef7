/**
 * `hooktap dev`: the receiver. Finds the config (or asks for one), starts a
 * dev session (src/dev_session.ts), prints its banner and activity, and
 * stops it on Ctrl-C or SIGTERM.
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { relative, resolve } from "node:path";
import { loadConfig, starterConfig } from "../config/load.ts";
import { configFromAnswers } from "../config/starter.ts";
import { CONFIG_FILE_NAME, type ResolvedConfig } from "../config/types.ts";
import { validateConfig } from "../config/validate.ts";
import { writeConfigFile } from "../config/write.ts";
import { startDevSession } from "../dev_session.ts";
import { describeError } from "../errors.ts";
import { banner, createActivityLog } from "../ui/dev_log.ts";
import { plural } from "../ui/format.ts";
import { askStarterAnswers, whyNoPrompt } from "../ui/prompts.ts";
import { type CommandContext, parsePort, storeOf } from "./_shared.ts";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

async function configForDev(ctx: CommandContext, path: string | undefined): Promise<ResolvedConfig> {
  const config = await loadConfig({ cwd: ctx.cwd, path });
  if (config !== null) return config;
  const c = ctx.output.errColors;
  const file = resolve(ctx.cwd, CONFIG_FILE_NAME);
  const why = whyNoPrompt(file);
  if (why === undefined) {
    const answers = await askStarterAnswers("No hooktap.config.ts here yet: let's write one.");
    await writeConfigFile(file, answers);
    return validateConfig(configFromAnswers(answers), file);
  }
  ctx.output.err(
    c.yellow(`No hooktap.config.ts here and ${why}: using the built-in starter config `) +
      '(port 8787, POST /webhook as "default"). Nothing was written; `hooktap init --yes` writes it.\n',
  );
  return starterConfig();
}

/** The `dev` command. */
export function devCommand(ctx: CommandContext) {
  return new Command("dev")
    .description("Receive webhooks: listen on the configured port and store every matched request")
    .option("-c, --config <path>", "config file", undefined)
    .option("-p, --port <port>", "listen on this port instead of the config's (0 = any free port)")
    .option(
      "--host <host>",
      "interface to bind; anything but loopback exposes hooktap to your network",
      "127.0.0.1",
    )
    .option("--json", "print one JSON object per request on stdout (the banner still goes to stderr)")
    .option("-q, --quiet", "print no line per request")
    .addHelpText(
      "after",
      "\nExamples:\n  hooktap dev\n  hooktap dev --port 9000\n  hooktap dev --json | jq .id\n" +
        "  # in another terminal: ngrok http 8787\n",
    )
    .action(async (opts) => {
      const out = ctx.output;
      const c = out.errColors;
      const config = await configForDev(ctx, opts.config);
      const port = opts.port === undefined ? config.port : parsePort(opts.port);
      if (!LOOPBACK.test(opts.host)) {
        out.err(
          c.yellow(
            `warning: binding ${opts.host}: anyone who can reach this machine on port ${port} can send events to hooktap and see its answers. Use the default 127.0.0.1 unless you mean it.\n`,
          ),
        );
      }
      const paths = storeOf(ctx);
      let lastFailure = "";
      const activity = opts.quiet
        ? undefined
        : createActivityLog(out, { json: opts.json ?? false, endpoints: config.endpoints });
      const session = await startDevSession({
        config,
        paths,
        hostname: opts.host,
        port,
        onOutcome: (o) => {
          activity?.(o);
          if (o.status === 503 && o.reason !== lastFailure) {
            lastFailure = o.reason ?? "";
            out.err(
              c.red(`error: cannot save events: ${lastFailure}. Answering 503 until writes work again.\n`),
            );
          } else if (o.status === 200 && lastFailure !== "") {
            lastFailure = "";
            out.err(c.green("Writes work again; events are being saved.\n"));
          }
        },
        onError: (error) => out.err(c.red(`error: ${describeError(error)}\n`)),
      });
      const eventsFile = relative(ctx.cwd, paths.events) || paths.events;
      out.err(
        banner({
          hostname: session.hostname,
          port: session.port,
          endpoints: config.endpoints,
          eventsFile,
          configFile: config.file === null ? null : relative(ctx.cwd, config.file) || config.file,
          repairedBytes: session.repairedBytes,
        }, out) + "\n",
      );
      const stop = () => session.stop();
      if (ctx.signal.aborted) stop();
      ctx.signal.addEventListener("abort", stop, { once: true });
      const captured = await session.finished;
      out.err(`\nStopped. ${plural(captured, "event")} captured this session, in ${eventsFile}.\n`);
    });
}
