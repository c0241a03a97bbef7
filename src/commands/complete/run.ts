/**
 * `hooktap complete -- WORDS...` (hidden): what the completion scripts call
 * at each TAB. Prints the candidates for the last word, one per line as
 * `value<TAB>description`. Never fails: a broken config or an unreadable
 * store just means fewer candidates. The config (a worker import) is read
 * only when an endpoint name is being completed.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { candidates, type CompletionData, type RecentEvent } from "../../completion/candidates.ts";
import { safeLine } from "../../text/sanitize.ts";
import type { CommandContext } from "../_shared/context.ts";

function _data(ctx: CommandContext): CompletionData {
  let recent:
    | Promise<{ id: string; endpoint: string; method: string; path: string; receivedAt: string }[]>
    | undefined;
  const events = () =>
    recent ??= (async () => {
      // The store's modules load only when a TAB needs events: commands and options complete without them.
      const [{ openStore }, { tail }] = await Promise.all([
        lazyImport<typeof import("../_shared/context.ts")>("src/commands/_shared/context.ts"),
        lazyImport<typeof import("../../store/read/tail.ts")>("src/store/read/tail.ts"),
      ]);
      const reader = await openStore(ctx).catch(() => null);
      try {
        return reader === null ? [] : await tail(reader, { limit: 50 });
      } catch {
        return [];
      } finally {
        reader?.[Symbol.dispose]();
      }
    })();
  return {
    async endpoints() {
      const { configuredEndpointNames } = await lazyImport<typeof import("../../completion/config_names.ts")>(
        "src/completion/config_names.ts",
      );
      const names = new Set([
        ...(await configuredEndpointNames(ctx.cwd)),
        ...(await events()).map((e) => e.endpoint),
      ]);
      return [...names].sort();
    },
    async triggerable(provider?: string) {
      const { triggerCandidates } = await lazyImport<typeof import("../../trigger/list.ts")>(
        "src/trigger/list.ts",
      );
      return await triggerCandidates(provider);
    },
    async recentEvents(): Promise<RecentEvent[]> {
      const { formatClock } = await lazyImport<typeof import("../../text/format.ts")>("src/text/format.ts");
      return (await events()).slice(-20).reverse().map((e) => ({
        id: e.id,
        description: safeLine(`${e.endpoint} ${e.method} ${e.path} ${formatClock(new Date(e.receivedAt))}`),
      }));
    },
  };
}

/** `hooktap complete`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const found = await candidates(await ctx.commands(), input.args, _data(ctx));
  ctx.output.out(
    found.map(([value, description]) => `${safeLine(value)}\t${safeLine(description)}\n`).join(""),
  );
}
