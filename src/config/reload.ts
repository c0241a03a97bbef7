/**
 * Hot reload: watches the config file while `hooktap dev` runs, and on each
 * settled edit (debounced) loads it again, with a fresh module URL so the
 * new text is read. A config that loads and validates is handed to
 * `onConfig` as a new generation (./generation.ts: its functions run in a
 * worker of their own, which reads every module the config imports anew);
 * one that does not goes to `onError` and the running config stays. The directory is watched, not the file, so editors that save by
 * writing a new file and renaming it over the old one are seen too.
 * @module
 */
import { basenameOf, dirnameOf } from "../text/path.ts";
import { type ConfigGeneration, openConfig } from "./generation.ts";

/** Options of {@linkcode watchConfig}. */
export interface WatchConfigOptions {
  /** Absolute path of the config file. */
  file: string;
  /** Called with each edit that loads and validates; the generation is the callee's to retire or dispose. */
  onConfig: (generation: ConfigGeneration) => void;
  /** Called with the error of an edit that does not (a ConfigError, usually). */
  onError: (error: unknown) => void;
  /**
   * Quiet time after the last file event before loading, in milliseconds.
   * @default 100
   */
  debounceMs?: number;
  /**
   * Loads the config.
   * @default openConfig with a cache-busting token
   */
  load?: (file: string, token: string) => Promise<ConfigGeneration | null>;
}

/** A running watch. */
export interface ConfigWatch {
  /** Stops watching; a load already running still settles. */
  close(): void;
}

const defaultLoad = (file: string, token: string) => openConfig({ path: file, cacheBust: token });

/** Starts watching the config file. */
export function watchConfig(options: WatchConfigOptions): ConfigWatch {
  const { file, onConfig, onError } = options;
  const load = options.load ?? defaultLoad;
  const name = basenameOf(file);
  const debounceMs = options.debounceMs ?? 100;
  const watcher = Deno.watchFs(dirnameOf(file), { recursive: false });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  const reload = () => {
    const mine = ++generation;
    running = running.then(async () => {
      if (closed || mine !== generation) return; // a newer edit is queued: load that one
      try {
        const loaded = await load(file, `${Date.now()}-${mine}`);
        if (closed || mine !== generation) {
          await loaded?.[Symbol.asyncDispose](); // stopped, or a newer edit is queued: its worker ends
          return;
        }
        if (loaded === null) throw new Error(`${file} was removed; keeping the running config.`);
        onConfig(loaded);
      } catch (error) {
        if (!closed && mine === generation) onError(error);
      }
    });
  };
  (async () => {
    try {
      for await (const event of watcher) {
        if (!event.paths.some((p) => basenameOf(p) === name)) continue;
        clearTimeout(timer);
        timer = setTimeout(reload, debounceMs);
      }
    } catch { /* watcher closed */ }
  })();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      try {
        watcher.close();
      } catch { /* already closed */ }
    },
  };
}
