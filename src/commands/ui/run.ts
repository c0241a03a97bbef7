/**
 * `hooktap ui`: the inspector over the stored events, without receiving.
 * New events another `hooktap dev` appends show up live (it follows the
 * log). Stops on Ctrl-C.
 * @module
 */
import { pathInside } from "../../text/path.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { launchInspector } from "../../inspector/launch.ts";
import { resignerFor } from "../../send/resigner.ts";
import { followLog } from "../../inspector/live.ts";
import { runningDev } from "../../store/read/dev_lock.ts";
import { inspectorFiles } from "../../store/paths.ts";
import { openInBrowser } from "../../inspector/open.ts";
import { configOrProblem } from "../_shared/hints.ts";
import { type CommandContext, explicitConfig, storeOf } from "../_shared/context.ts";

/** `hooktap ui`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const out = ctx.output;
  const c = out.errColors;
  const explicitPort = opts.port;
  // An explicit --config must load (exit 78); only the default file that does not load is browsed without.
  const loaded = opts.config !== undefined
    ? (await explicitConfig(ctx, opts.config))!
    : await configOrProblem(ctx, undefined);
  const config = loaded !== null && !("problem" in loaded) ? loaded : undefined;
  if (loaded !== null && "problem" in loaded) {
    out.err(c.yellow(`warning: the config does not load (${loaded.problem}); browsing without it.\n`));
  }
  const configured = config?.ui === false ? null : config?.ui.port ?? null;
  const port = explicitPort ?? configured ?? (config?.port ? config.port + 1 : 8788);
  const paths = storeOf(ctx);
  const { inspector, note } = launchInspector({
    paths,
    port,
    explicit: explicitPort !== undefined || configured !== null,
    endpoints: config?.endpoints ?? [],
    resign: resignerFor(config?.endpoints ?? []),
    live: followLog(paths),
    portOptions: { port: "--port" }, // ui's own option; it has no --no-ui
  });
  // The default port taken by the running dev's own inspector: it shows the same events live.
  const dev = note !== undefined ? await runningDev(paths) : undefined;
  const devs = dev?.inspector === port && inspector.port !== port
    ? `port ${port} is the inspector of the hooktap dev running here (pid ${dev.pid}), which shows these ` +
      `events live: open its link (dev printed it; or open ${
        pathInside(ctx.cwd, inspectorFiles(paths.dir, port).page) || inspectorFiles(paths.dir, port).page
      } in a browser) and stop this one, or keep this one on ${inspector.port} (--port to choose)`
    : note;
  const eventsFile = pathInside(ctx.cwd, paths.events) || paths.events;
  const files = inspector.tokenFiles;
  out.err(
    `${c.bold("hooktap ui")} on ${c.cyan(inspector.openUrl)} ${c.dim("(bound to 127.0.0.1)")}\n` +
      c.dim(
        "Only this link opens it (its token is this session's; other users of this machine cannot read it)" +
          (files ? `; scripts send the token in ${pathInside(ctx.cwd, files.token) || files.token}` : "") +
          ".",
      ) + "\n" +
      (inspector.tokenFileProblem
        ? c.yellow(`note: the token file was not written (${inspector.tokenFileProblem}); the link works.\n`)
        : "") +
      (devs ? c.yellow(`note: ${devs}\n`) : "") +
      `Events: ${eventsFile} (new ones appear live while \`hooktap dev\` runs)\n` +
      c.dim("Press Ctrl-C to stop.") + "\n",
  );
  if (opts.open) {
    // The owner-only page that leads on to the link: the token never goes on a command line (`ps`).
    const problem = files === undefined
      ? "the token page could not be written, and the link must not go on a command line"
      : await openInBrowser(files.page);
    if (problem !== undefined) {
      out.err(`Could not open a browser (${problem}): open the link above yourself.\n`);
    }
  }
  if (!ctx.signal.aborted) {
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener("abort", () => resolve(), { once: true })
    );
  }
  await inspector.stop();
}
