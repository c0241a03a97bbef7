/**
 * `hooktap trigger <provider> <event>`: builds a provider's event from the
 * catalog, signs it as the provider does, sends it to the running `hooktap
 * dev` (or `--to`), with the faults asked for, and shows the answers.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import { UsageError } from "../../errors.ts";
import { suggestCommand } from "../../text/command_line.ts";
import { CONFIG_FILE_NAME, type ResolvedConfig } from "../../config/types.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { canonicalProvider, CATALOG } from "../../providers/catalog.ts";
import { parseHeaderOption } from "../../send/overrides.ts";
import { loadCatalog, resolveEvent as resolveTrigger } from "../../trigger/registry.ts";
import { type Delivery, devAnswer, judgeByDev, trigger, type TriggerRequest } from "../../trigger/run.ts";
import { setUpTrigger } from "../../trigger/setup.ts";
import { deliveryJson, deliveryText, listText } from "../../term/trigger_view.ts";
import type { StorePaths } from "../../store/paths.ts";
import type { CommandContext } from "../_shared/context.ts";

// What one `hooktap trigger <provider> <event> --to URL --secret S` does not need is imported when asked
// for (a list, a fixture, a body file, dev's side channel, a config): its start-up reads fewer modules.
const shared = () => lazyImport<typeof import("../_shared/context.ts")>("src/commands/_shared/context.ts");

type Opts = Input<typeof options>["options"];

async function _list(ctx: CommandContext, provider: string | undefined, json: boolean): Promise<void> {
  if (provider !== undefined) await loadCatalog(provider); // did-you-mean for a typo
  const { listCatalog } = await lazyImport<typeof import("../../trigger/list.ts")>("src/trigger/list.ts");
  const entries = await listCatalog(
    provider === undefined ? undefined : canonicalProvider(provider) ?? provider,
  );
  if (json) {
    ctx.output.out(entries.map((e) => JSON.stringify(e) + "\n").join(""));
    return;
  }
  const titles = Object.fromEntries(Object.entries(CATALOG).map(([k, v]) => [k, v.title]));
  ctx.output.out(listText(entries, titles, provider !== undefined, ctx.output.colors));
}

async function _fixture(ctx: CommandContext, file: string) {
  let text: string;
  try {
    text = await Deno.readTextFile(file.startsWith("/") ? file : `${ctx.cwd}/${file}`);
  } catch (error) {
    throw new UsageError(
      `--fixture ${file} cannot be read: ${error instanceof Error ? error.message : error}`,
    );
  }
  const { parseFixture } = await lazyImport<typeof import("../../trigger/fixture.ts")>(
    "src/trigger/fixture.ts",
  );
  return parseFixture(text, file);
}

/** The options `--list` honours: the rest send, and a list sends nothing. */
const LIST_OPTIONS: ReadonlySet<string> = new Set(["list", "json", "timeout"]);

/**
 * Refuses what `--list` would ignore: an event after the provider, and any option of a send.
 * @throws {UsageError} naming it.
 */
function _checkListFlags(o: Opts, provider: string | undefined, event: string | undefined): void {
  if (event !== undefined) {
    throw new UsageError(
      `--list lists every event of a provider, so it takes no event ("${event}"): run ${
        suggestCommand(["trigger", "--list", provider!])
      }, or send it without --list.`,
    );
  }
  for (const [key, value] of Object.entries(o)) {
    if (LIST_OPTIONS.has(key) || value === undefined || value === false) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new UsageError(
      `--list only lists (it sends nothing), so ${flag} has no effect with it: leave one out.`,
    );
  }
}

function _checkFlags(o: Opts): void {
  if (o.fixture !== undefined && o.bodyFile !== undefined) {
    throw new UsageError(
      "--fixture brings its own steps and bodies, so --body-file has no place: give one or the other.",
    );
  }
  if (o.bodyFile !== undefined && o.unset.length > 0) {
    throw new UsageError(
      "--body-file replaces the whole body, so --unset has nothing to remove: give one or the other.",
    );
  }
  if (o.seed !== undefined && !o.outOfOrder) {
    throw new UsageError("--seed orders --out-of-order's shuffle: give --out-of-order too.");
  }
  if (o.realTime && o.retries === undefined) {
    throw new UsageError("--real-time paces --retries: give --retries N too.");
  }
  if (o.bodyFile !== undefined && o.set.length > 0) {
    throw new UsageError(
      "--body-file replaces the whole body, so --set has nothing to change: give one or the other.",
    );
  }
  if (o.secret === "") {
    // An empty key signs nothing a receiver would accept (and WebCrypto refuses it).
    throw new UsageError(
      '--secret is empty: give the secret the receiver checks with (--secret "$SECRET" expands to nothing ' +
        "when the variable is unset), or leave --secret out to use the endpoint's `secret`.",
    );
  }
  if (o.stale && o.badSignature) {
    throw new UsageError("Give --stale or --bad-signature, not both: each is its own fault.");
  }
}

/** The warning for a delivery sent unsigned: what the provider needed, and where to give it. */
/** `hooktap trigger`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const o = input.options;
  const out = ctx.output;
  const [providerArg, eventArg] = input.args;
  if (o.list) {
    _checkListFlags(o, providerArg, eventArg);
    return await _list(ctx, providerArg, o.json ?? false);
  }
  if (o.fixture !== undefined && eventArg !== undefined) {
    throw new UsageError(
      `--fixture sends the file's steps, so there is no event to name: ${
        suggestCommand(["trigger", providerArg ?? "<provider>", "--fixture", o.fixture])
      }`,
    );
  }
  if (providerArg !== undefined && eventArg === undefined && o.fixture === undefined) {
    const catalog = await loadCatalog(providerArg); // an unknown provider: its own did-you-mean
    const flows = Object.keys(catalog.sequences).length;
    throw new UsageError(
      `Say which event to send: ${suggestCommand(["trigger", providerArg])} <event>. ` +
        `\`${
          suggestCommand(["trigger", "--list", providerArg])
        }\` shows its ${catalog.events.length} events` +
        (flows > 0 ? ` and ${flows} sequences.` : "."),
    );
  }
  if (providerArg === undefined || (eventArg === undefined && o.fixture === undefined)) {
    throw new UsageError(
      `Give a provider and an event: ${
        suggestCommand(["trigger", "stripe", "checkout.session.completed"])
      }. ` +
        `\`${suggestCommand(["trigger", "--list"])}\` shows what can be triggered.`,
    );
  }
  _checkFlags(o);
  const catalog = await loadCatalog(providerArg);
  const provider = catalog.provider;
  // An unknown event is a usage error before anything is read.
  const steps = o.fixture === undefined ? undefined : await _fixture(ctx, o.fixture);
  const event = eventArg ?? `--fixture ${o.fixture}`;
  if (steps === undefined) resolveTrigger(catalog, event);
  else for (const step of steps) resolveTrigger(catalog, step.event);
  const warn = (text: string) => out.err(out.errColors.yellow(`warning: ${text}\n`));
  const config = await _config(ctx, o);
  // The store's paths, imported when dev or hooktap's key pair needs them (`--to URL --secret S` needs neither).
  let store: Promise<StorePaths> | undefined;
  const paths = () =>
    store ??= lazyImport<typeof import("../../store/paths.ts")>("src/store/paths.ts").then((p) =>
      p.storePaths(`${ctx.cwd}/${p.DATA_DIR_NAME}`) // made absolute and normalised, as joinPath would
    );
  const setup = await setUpTrigger({
    config,
    provider,
    endpoint: o.endpoint,
    to: o.to,
    secret: o.secret,
    paths,
    secretOption: "--secret",
    // Requests the provider sends unsigned (Meta's verification): a secret would sign nothing.
    unsigned: (steps?.map((s) => s.event) ?? [event]).every((e) =>
      catalog.unsignedEvents?.includes(e) === true
    ),
    // `--to` dev's own URL matters only for a fault dev's verdict judges: no look at dev's lock otherwise.
    askDevUrl: o.badSignature === true || o.stale === true,
    noDev: () =>
      new UsageError(
        `No \`hooktap dev\` is running in this directory: start it (${
          suggestCommand(["dev", ...(o.config === undefined ? [] : ["--config", o.config])])
        }) in another terminal, or send straight to your app with --to http://localhost:3000/webhooks.`,
      ),
  });
  const { to, material, keys } = setup;
  if (setup.key !== undefined && !o.json) {
    out.err(out.errColors.dim(
      `Signed with hooktap's ${setup.key.kind} key (${setup.key.created ? "made now, " : ""}kept in ` +
        `.hooktap/trigger-keys.json). Your app must trust its public key: ${setup.key.publicKey}\n`,
    ));
  }
  for (const w of setup.warnings) warn(w);
  const faults = {
    ...(o.duplicate ? { duplicate: true } : {}),
    ...(o.outOfOrder ? { outOfOrder: true } : {}),
    ...(o.stale ? { stale: true } : {}),
    ...(o.badSignature ? { badSignature: true } : {}),
    ...(o.realTime ? { realTime: true } : {}),
  };
  const body = o.bodyFile === undefined ? undefined : await (await shared()).readBodyFile(ctx, o.bodyFile);
  const request: TriggerRequest = {
    provider,
    event,
    to,
    ...(steps !== undefined ? { steps } : {}),
    ...(o.unset.length > 0 ? { unset: o.unset } : {}),
    ...(o.apiVersion !== undefined ? { apiVersion: o.apiVersion } : {}),
    ...(o.signatureUrl !== undefined ? { signatureUrl: o.signatureUrl } : {}),
    ...material,
    ...(keys !== undefined ? { keys } : {}),
    ...(setup.endpoint?.signing?.tolerance !== undefined
      ? { tolerance: setup.endpoint.signing.tolerance }
      : {}),
    set: o.set,
    ...(o.setNew ? { setNew: true } : {}),
    ...(body !== undefined ? { body } : {}),
    headers: o.header.map(parseHeaderOption),
    fault: {
      ...faults,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.retries !== undefined ? { retries: o.retries } : {}),
    },
  };
  const viaDev = setup.intoDev; // no --to, or --to dev's own URL: dev's verdict judges a fault
  let told: boolean | undefined;
  const resolved: { sequence?: string } = steps === undefined ? resolveTrigger(catalog, event) : {};
  const outcomeExtra = {
    ...(resolved.sequence === undefined ? {} : { sequence: resolved.sequence }),
    // With --json the key line is not printed: the app's public key is in each object instead.
    ...(setup.key === undefined ? {} : { publicKey: setup.key.publicKey }),
  };
  const outcome = await trigger(request, {
    timeoutMs: o.timeout,
    signal: ctx.signal,
    beforeSend: async (d) => {
      if (!viaDev || told === false) return;
      const { tellDev } = await lazyImport<typeof import("../../trigger/side_channel.ts")>(
        "src/trigger/side_channel.ts",
      );
      told = await tellDev(await paths(), d).then(() => true, (error: Error) => {
        if (d.fault !== undefined) warn(`dev was not told which deliveries are faults: ${error.message}`);
        return false;
      });
    },
    onDelivery: async (d) => {
      if (viaDev && d.status !== undefined && d.status < 300) await _devVerdict(ctx, d);
      if (o.json) out.out(JSON.stringify(deliveryJson(d, outcomeExtra)) + "\n");
      else out.out(deliveryText(d, out.colors));
    },
  });
  if (outcome.seed !== undefined && !o.json) {
    out.err(out.errColors.dim(`Shuffled with --seed ${outcome.seed}.\n`));
  }
  if (outcome.retriesNote !== undefined && !o.json) {
    out.err(
      out.errColors.dim(`Retries: ${outcome.retriesNote}${o.realTime ? "" : " (compressed to seconds)"}.\n`),
    );
  }
  if (outcome.deliveries.length === 0 || outcome.deliveries.some((d) => !d.ok)) ctx.exit(1);
}

/**
 * Through `dev` (which answers 200 unless the endpoint enforces), dev's verdict on the stored event: from
 * dev's own answer, else (a fault, whose judgement needs it) from the store.
 */
async function _devVerdict(ctx: CommandContext, d: Delivery): Promise<void> {
  const { id, verdict } = devAnswer(d);
  if (id === undefined) return;
  if (verdict !== undefined) return judgeByDev(d, verdict);
  if (!d.expectRejection) return;
  const { openStore } = await shared();
  const { resolveEvent } = await lazyImport<typeof import("../../store/read/resolve.ts")>(
    "src/store/read/resolve.ts",
  );
  const reader = await openStore(ctx);
  try {
    const event = await resolveEvent(reader, id);
    if (event.verdict?.status !== undefined) judgeByDev(d, event.verdict.status);
  } catch {
    /* not found: judged by the answer */
  } finally {
    reader?.[Symbol.dispose]();
  }
}

/**
 * The config, when the trigger needs it (to find dev's endpoint or a secret) and there is one. It is
 * not loaded for `--to URL --secret S` (start-up), nor when there is no config file.
 */
async function _config(ctx: CommandContext, o: Opts): Promise<ResolvedConfig | null> {
  if (o.config === undefined) {
    if (o.to !== undefined && o.secret !== undefined && o.endpoint === undefined) return null;
    // The dev running here started with --config: its endpoints are the ones it serves.
    const running = await _runningDevConfig(`${ctx.cwd}/.hooktap/dev.lock`);
    if (running !== undefined) {
      if (!o.json) {
        ctx.output.err(ctx.output.errColors.dim(`Using ${running}, the config of the dev running here.\n`));
      }
      return await (await shared()).optionalConfig(ctx, running);
    }
    const exists = await Deno.stat(`${ctx.cwd}/${CONFIG_FILE_NAME}`).then(() => true, () => false);
    if (!exists) return null;
  }
  const { optionalConfig } = await shared();
  return await optionalConfig(ctx, o.config);
}

/**
 * The `--config` the dev holding the lock at `lockPath` started with (as given, relative to the directory
 * it runs in): the config trigger uses when given none. `undefined` when no dev holds it, or it runs on the
 * default config.
 */
async function _runningDevConfig(lockPath: string): Promise<string | undefined> {
  const { heldLockOwner } = await lazyImport<typeof import("../../store/read/dev_lock.ts")>(
    "src/store/read/dev_lock.ts",
  );
  const config = (await heldLockOwner(lockPath))?.config;
  return typeof config === "string" && config !== "" ? config : undefined;
}
