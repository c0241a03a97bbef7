/**
 * A config generation: one load of the config file as `hooktap dev` uses
 * it, with the worker that runs its response functions (./code_worker.ts)
 * for as long as the generation is in use. A reload opens a new generation;
 * dev retires the old one once it accepted the new (its worker ends when no
 * call runs), and disposes of every generation when it stops.
 * @module
 */
import { loadConfigCode, type LoadConfigOptions } from "./load.ts";
import type { ResolvedConfig } from "./types.ts";

/** One loaded config and the code behind its functions. */
export interface ConfigGeneration extends AsyncDisposable {
  readonly config: ResolvedConfig;
  /** Whether a worker runs the config's functions (it holds some, and was not retired or disposed). */
  readonly running: boolean;
  /**
   * Ends the worker once no call of its functions runs (at once when none does); resolves when it ended.
   * A call after that answers a 500 saying a reload replaced its config.
   */
  retire(): Promise<void>;
}

/**
 * Loads the config file as {@linkcode loadConfig} does, keeping its functions' worker running.
 * @returns the generation, or `null` when no file exists at the default path.
 * @throws {ConfigError} naming the file and what is wrong with it (no worker is left running then).
 */
export async function openConfig(options: LoadConfigOptions = {}): Promise<ConfigGeneration | null> {
  const loaded = await loadConfigCode(options, true);
  if (loaded === null) return null;
  const { config, worker } = loaded;
  if (worker === undefined) return fixedGeneration(config);
  return {
    config,
    get running() {
      return worker.running;
    },
    retire: () => worker.retire(),
    [Symbol.asyncDispose]() {
      worker.end("hooktap dev is stopping");
      return Promise.resolve();
    },
  };
}

/** A generation without code to run: a plain config, the starter config. */
export function fixedGeneration(config: ResolvedConfig): ConfigGeneration {
  return {
    config,
    running: false,
    retire: () => Promise.resolve(),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}
