/**
 * Loads `hooktap.config.ts` by dynamic import, in a worker so that a config
 * that hangs (a top-level await that never settles, an endless loop) is
 * stopped after a bounded wait instead of hanging the CLI. A config that is
 * plain data (./plain.ts: it cannot loop, wait or load code) is imported in
 * the CLI's own isolate instead, sparing the worker's start (12–20 ms). The
 * functions of a config (a custom `response`) stay in its worker
 * (./code_worker.ts): `hooktap dev` keeps it running (./generation.ts),
 * every other command ends it once the data is out.
 * @module
 */
import { ConfigError, describeError } from "../errors.ts";
import { STARTER_CONFIG } from "./starter.ts";
import { CONFIG_FILE_NAME, type ResolvedConfig } from "./types.ts";
import { dirnameOf, fileUrl, joinPath, resolvePath } from "../text/path.ts";
import { validateConfig } from "./validate.ts";
import { isPlainConfig } from "./plain.ts";
import { shellQuote, suggestCommand } from "../text/command_line.ts";
import { configWords } from "../text/config_words.ts";
import { envNameOf, withLines } from "./locate.ts";
import { unsetSecretWarning } from "./endpoint.ts";
import { closest } from "../text/suggest.ts";
import { ConfigWorker, type LoadAnswer } from "./code_worker.ts";

/** Options of {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /**
   * Path of the config file, relative to `cwd`.
   * @default "hooktap.config.ts"
   */
  path?: string | undefined;
  /**
   * Directory the path is resolved from.
   * @default Deno.cwd()
   */
  cwd?: string;
  /**
   * Longest wait for the file's import, in milliseconds.
   * @default the HOOKTAP_CONFIG_TIMEOUT_MS environment variable when Deno may read it, else 10000
   */
  timeoutMs?: number;
  /**
   * A token appended to the module URL (`?v=...`) so a file edited since the last import is read anew (hot reload).
   * @default none
   */
  cacheBust?: string;
}

/** Environment variable that shortens or lengthens the config import's wait (tests, slow machines). */
export const CONFIG_TIMEOUT_ENV = "HOOKTAP_CONFIG_TIMEOUT_MS";

/** The wait from {@linkcode CONFIG_TIMEOUT_ENV}, read only when already granted (never prompts). */
function envTimeoutMs(): number | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: CONFIG_TIMEOUT_ENV }).state !== "granted") {
    return undefined;
  }
  const ms = Number(Deno.env.get(CONFIG_TIMEOUT_ENV));
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** Module URLs imported here (not in a worker): a second load of one goes to a worker, which reads it anew. */
const importedHere = new Set<string>();

/** Imports a plain config (./plain.ts) in this isolate, answering as the worker would. */
async function importHere(url: string): Promise<LoadAnswer> {
  importedHere.add(url);
  let mod: Record<string, unknown>;
  try {
    mod = await import(url);
  } catch (error) {
    return {
      ok: false,
      error: String(error instanceof Error && error.stack || error),
      message: String(error instanceof Error ? error.message : error),
    };
  }
  return { ok: true, hasDefault: "default" in mod, value: mod.default, functions: 0 };
}

/** Whether the file at `file` can be imported here: plain data, first read in this process, no reload. */
async function importableHere(file: string, url: string, cacheBust: string | undefined): Promise<boolean> {
  if (cacheBust !== undefined || importedHere.has(url)) return false;
  try {
    return isPlainConfig(await Deno.readTextFile(file));
  } catch {
    return false; // the import says what is wrong
  }
}

/** A file Deno imports as a module: TypeScript or JavaScript, by its extension. */
export const MODULE_FILE: RegExp = /\.(?:m?[jt]s|[jt]sx)$/i;

/** Absolute path of the config file a command would read. */
export function configPath(options: LoadConfigOptions = {}): string {
  return resolvePath(options.cwd ?? Deno.cwd(), options.path ?? CONFIG_FILE_NAME);
}

/**
 * Reads, imports and validates the config file.
 * @returns the resolved config, or `null` when no file exists at the default path.
 * @throws {ConfigError} naming the file and what is wrong with it.
 *
 * @example
 * ```ts
 * import { loadConfig } from "@hooktap/hooktap/testing";
 * const config = await loadConfig({ path: "hooktap.config.ts" });
 * console.log(config?.port);
 * ```
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig | null> {
  return (await loadConfigCode(options, false))?.config ?? null;
}

/** A loaded config, and the worker that runs its functions while it is kept. */
export interface LoadedConfig {
  config: ResolvedConfig;
  /** Runs the config's response functions; `undefined` for a config without any, or one not `keep`. */
  worker: ConfigWorker | undefined;
}

/**
 * {@linkcode loadConfig}, keeping the config's worker running when `keep` and the config holds functions
 * (./generation.ts owns it then); else their proxies say that they run only in `hooktap dev`.
 * @internal
 */
export async function loadConfigCode(
  options: LoadConfigOptions,
  keep: boolean,
): Promise<LoadedConfig | null> {
  const file = configPath(options);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      if (options.path === undefined) return null;
      throw new ConfigError(`Config file ${file} does not exist.`, [
        `check the --config path, or run \`${
          suggestCommand(["init", "--yes", ...configWords(file, options.cwd ?? Deno.cwd())])
        }\` to write one`,
      ]);
    }
    throw new ConfigError(`Cannot read config file ${file}: ${describeError(error)}`, [
      "allow reading it (deno run --allow-read=.) and check its permissions",
    ]);
  }
  if (info.isDirectory) {
    throw new ConfigError(`Config path ${file} is a directory, not a file.`, [
      `point --config at the file itself, e.g. ${resolvePath(file, CONFIG_FILE_NAME)}`,
    ]);
  }
  if (!info.isFile) {
    // A FIFO or a device: opening it could block forever, so it is refused here.
    throw new ConfigError(`Config path ${file} is not a regular file (it is ${fileKind(info)}).`, [
      "point --config at a hooktap.config.ts file",
    ]);
  }
  if (!MODULE_FILE.test(file)) {
    // `--config hooktap.json` would fail in the module loader with a message about import attributes.
    throw new ConfigError(
      `Config file ${file} is not a TypeScript or JavaScript module: hooktap imports its config, so the ` +
        "file must end in .ts (or .mts, .js, .mjs).",
      [
        "put the settings in a hooktap.config.ts that default-exports them " +
        `(\`${suggestCommand(["init", "--yes"])}\` writes one), and give --config that file`,
      ],
    );
  }
  try {
    // Open it here first: a clear error for an unreadable file, not a module-loader one.
    (await Deno.open(file, { read: true })).close();
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${file}: ${describeError(error)}`, [
      "check the file's permissions (chmod u+r) and that Deno may read it (--allow-read=.)",
    ]);
  }
  const timeoutMs = options.timeoutMs ?? envTimeoutMs() ?? 10_000;
  const url = fileUrl(file).href + (options.cacheBust === undefined ? "" : `?v=${options.cacheBust}`);
  const loaded = await importableHere(file, url, options.cacheBust)
    ? { answer: await importHere(url), worker: undefined }
    : await ConfigWorker.load(url, timeoutMs, keep);
  if (loaded === "timeout") {
    throw new ConfigError(`Config file ${file} did not finish loading within ${timeoutMs / 1000} s.`, [
      "it may wait on a promise that never settles, loop forever, or fetch from an unreachable host; a config should only export data",
    ]);
  }
  const { answer, worker } = loaded;
  if (!answer.ok && answer.clone) {
    throw new ConfigError(
      `Config file ${file} exports a value hooktap cannot read out of it: ${answer.error}`,
      ["a config exports data (strings, numbers, objects, arrays) and response functions; remove the other value"],
    );
  }
  if (!answer.ok) {
    const missing = missingPackage(answer.error);
    if (missing !== undefined) {
      // A reload imports the config under `?v=N` (and Deno's message names it so).
      const importer = missing.importer?.replace(/\?v=[^/]*$/, "");
      const by = importer === undefined || importer === fileUrl(file).href
        ? "the config"
        : `its module ${decodeURIComponent(importer.replace(/^file:\/\//, ""))}`;
      const spelled = missing.specifier === missing.name ? "" : ` (${JSON.stringify(missing.specifier)})`;
      const where =
        "(hooktap's npm package finds a config's packages there, as Node does, and downloads nothing)";
      const folder = missing.listed ? undefined : installedIn(file, missing.name);
      if (folder !== undefined) {
        // Installed, but this hooktap is a Deno install (a checkout, `deno task install`, JSR, a binary): it
        // runs without the project's node_modules, so "not installed" would send the user to install it again.
        throw new ConfigError(
          `Config file ${file} failed to load: ${by} imports the package "${missing.name}"${spelled}, which is ` +
            `installed in ${folder}, but this hooktap runs on Deno without reading node_modules.`,
          [
            `run the npm package's hooktap in this project (${
              suggestCommand(["dev"], "npx hooktap")
            }): it finds a config's packages in node_modules, as Node does`,
          ],
        );
      }
      throw new ConfigError(
        `Config file ${file} failed to load: ${by} imports the package "${missing.name}"${spelled}, which ` +
          (missing.listed
            ? "package.json lists but is not installed."
            : missing.install !== missing.name
            ? "is not installed in this project (or not at a version that range accepts)."
            : "is not installed in this project."),
        [
          missing.listed
            ? `install the project's packages: npm install ${where.replace("there", "in node_modules")}`
            : `install it where the project's node_modules is: npm install ${
              shellQuote(missing.install)
            } ${where}`,
        ],
      );
    }
    const { cause, frame } = describeLoadError(answer.error, file);
    throw new ConfigError(`Config file ${file} failed to load: ${cause}${frame === "" ? "" : `\n${frame}`}`, [
      // Deno's "run again with the --allow-… flag" is no fix for an installed `hooktap`: its flags are fixed.
      /^(NotCapable|PermissionDenied): Requires /.test(cause)
        ? "a config runs with hooktap's permissions, and this one is not among them (each way of installing " +
          "lists its own: docs/install.md): do that step before hooktap starts and pass its result in an " +
          "environment variable (Deno.env.get)"
        : "fix the error above in the file",
    ]);
  }
  try {
    const value = worker === undefined ? answer.value : worker.revive(answer.value);
    const config = await validated(answer.hasDefault ? value : undefined, file);
    return { config, worker: worker?.running ? worker : undefined };
  } catch (error) {
    worker?.end("the config did not validate");
    throw error;
  }
}

/**
 * {@linkcode validateConfig}, each problem followed by the line of the field it names (` (line 5)`) where the
 * file's literals tell it for sure (./locate.ts; the file is read again only then).
 */
async function validated(value: unknown, file: string): Promise<ResolvedConfig> {
  try {
    return await _namingVariables(validateConfig(value, file), file);
  } catch (error) {
    if (!(error instanceof ConfigError) || error.issues.length === 0) throw error;
    let source: string;
    try {
      source = await Deno.readTextFile(file);
    } catch {
      throw error;
    }
    throw new ConfigError(error.message, withLines(error.issues, source));
  }
}

/**
 * `config` with each unset-secret warning naming the variable its field reads (`process.env.NAME`, from the
 * file's text: ./locate.ts) and a set variable of a close name; the file is read again only then.
 */
async function _namingVariables(config: ResolvedConfig, file: string): Promise<ResolvedConfig> {
  const unset = config.endpoints.flatMap((e, i) =>
    config.warnings.includes(unsetSecretWarning(e.name, `endpoints[${i}]`)) ? [i] : []
  );
  if (unset.length === 0) return config;
  let source: string;
  try {
    source = await Deno.readTextFile(file);
  } catch {
    return config;
  }
  // The names set here, for a typo's suggestion, where reading the environment is granted (it is for dev).
  const set = Deno.permissions.querySync({ name: "env" }).state === "granted"
    ? Object.entries(Deno.env.toObject()).filter(([, v]) => v !== "").map(([k]) => k)
    : [];
  const warnings = [...config.warnings];
  for (const i of unset) {
    const endpoint = config.endpoints[i]!;
    const at = `endpoints[${i}]`;
    const variable = envNameOf(source, `${at}.secret`);
    if (variable === undefined) continue;
    const near = closest(variable, set.filter((k) => k !== variable));
    const k = warnings.indexOf(unsetSecretWarning(endpoint.name, at));
    warnings[k] = unsetSecretWarning(endpoint.name, at, { name: variable, ...(near ? { near } : {}) });
  }
  return { ...config, warnings };
}

/** The built-in starter config, resolved. */
export function starterConfig(): ResolvedConfig {
  return validateConfig(STARTER_CONFIG, null);
}

function fileKind(info: Deno.FileInfo): string {
  if (info.isFifo) return "a FIFO";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  return "not a file";
}

/**
 * The package a config imports that is not installed, with its name (`dotenv`, `@scope/pkg`): imported by a
 * bare name that did not resolve (Deno: `Import "dotenv/config" not a dependency`), by a bare name the
 * project's package.json lists but node_modules lacks (`Could not resolve "dotenv/config", but found it in a
 * package.json`: `listed`), or as `npm:name@range` (`Could not find a matching package for 'npm:...' in the
 * node_modules directory`). Deno's own hints (`deno add npm:...`, `deno install`, `"nodeModulesDir"`) would
 * edit or install by a deno.json hooktap does not read.
 */
/** The `node_modules` folder (from the config's folder up) holding package `name`, when one can be read. */
function installedIn(file: string, name: string): string | undefined {
  let dir = dirnameOf(resolvePath(file));
  for (;;) {
    const folder = joinPath(dir, "node_modules");
    const manifest = joinPath(folder, name, "package.json");
    // Only where reading is granted: on a terminal Deno would ask the user for every folder above (the npm
    // launcher and `deno task dev` read `.` only).
    if (Deno.permissions.querySync({ name: "read", path: manifest }).state !== "granted") return undefined;
    try {
      if (Deno.statSync(manifest).isFile) return folder;
    } catch {
      // not there: look further up
    }
    const up = dirnameOf(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function missingPackage(
  raw: string,
): { specifier: string; name: string; install: string; importer?: string; listed: boolean } | undefined {
  // deno-lint-ignore no-control-regex
  const text = raw.replace(/\x1b\[[0-9;]*m/g, "");
  // The module whose import failed: Deno names it in the first frame (where the message does not).
  const frame = text.match(/\n\s+at (file:\/\/[^\s)]+?):\d+:\d+/)?.[1];
  let specifier: string, importer: string | undefined, listed = false;
  const bare = text.match(/Import "([^"./][^"]*)" not a dependency[^\n]*/);
  const inPackageJson = text.match(/Could not resolve "([^"./][^"]*)", but found it in a package\.json/);
  const npm = text.match(/Could not find a matching package for '(npm:[^']+)' in the node_modules directory/);
  if (bare !== null) {
    specifier = bare[1]!;
    importer = bare[0].match(/ from "([^"]+)"/)?.[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) return undefined; // npm:, jsr:, node: and the like
  } else if (inPackageJson !== null) {
    [specifier, importer, listed] = [inPackageJson[1]!, frame, true];
  } else if (npm !== null) {
    [specifier, importer] = [npm[1]!, frame];
  } else return undefined;
  // `npm:@scope/pkg@^1/sub` and `@scope/pkg/sub` name `@scope/pkg`; `npm:` installs its range (`@scope/pkg@^1`).
  const parts = specifier.replace(/^npm:\/?/, "").match(/^(@[^/@]+\/[^/@]+|[^/@]+)(@[^/]+)?/);
  const name = parts?.[1] ?? specifier;
  const install = specifier.startsWith("npm:") ? name + (parts?.[2] ?? "") : name;
  const found = { specifier, name, install, listed };
  return importer === undefined ? found : { ...found, importer };
}

/**
 * What an import error says, for a person: the cause on one line with the
 * line and column in the config (`SyntaxError: Expected ',', got 'endpoints'
 * (line 3, column 3)`), and the code frame Deno printed, if any; without
 * colour codes, the runtime's `TypeError:` wrapper or hooktap's own frames.
 */
export function describeLoadError(raw: string, file: string): { cause: string; frame: string } {
  // deno-lint-ignore no-control-regex
  const lines = raw.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
  const configUrl = fileUrl(file).href;
  let cause = lines[0]!.replace(/^TypeError: (?=SyntaxError: )/, "").trim();
  const frames = lines.slice(1).filter((l) => /^\s+at /.test(l));
  const code = lines.slice(1).filter((l) => !/^\s+at /.test(l) && l.trim() !== "");
  const own = frames.map((f) => f.match(/(file:\/\/[^\s)?]+?)(?:\?v=[^\s:)]*)?:(\d+):(\d+)/)).find((m) =>
    m !== null
  );
  if (own) {
    const where = own[1] === configUrl ? "" : ` of ${own[1]!.replace(/^file:\/\//, "")}`;
    cause += ` (line ${own[2]}, column ${own[3]}${where})`;
  }
  cause = cause.replace(/\.( \(line)/, "$1");
  return { cause, frame: code.map((l) => `    ${l.trimEnd()}`).join("\n") };
}
