/**
 * `deno task pack`: builds the npm package `hooktap` and writes exactly one
 * file, `dist/hooktap-<version>.tgz`. The CLI is bundled to one JavaScript
 * entry `lib/main.js` and its chunks (`deno bundle --code-splitting`, so a
 * command still loads only its own modules) so nothing is fetched or
 * transpiled when it runs; `bin/hooktap.cjs` (npm/hooktap.cjs) runs it on
 * the Deno binary of the exact `deno` npm package this checkout is tested
 * with.
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import denoJson from "../deno.json" with { type: "json" };

/** The Deno version the package depends on: the one that runs this script (CI tests with it). */
export const DENO_VERSION: string = Deno.version.deno;

const ROOT = dirname(dirname(fromFileUrl(import.meta.url)));

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed (${out.code}):\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return text;
}

/** The package.json of the npm package. */
export function packageJson(version: string, denoVersion: string): Record<string, unknown> {
  return {
    name: "hooktap",
    version,
    description: "Receive webhooks on your own machine: capture, inspect, verify, forward and replay them.",
    license: denoJson.license,
    keywords: ["webhook", "webhooks", "cli", "stripe", "github", "replay", "inspector"],
    bin: { hooktap: "bin/hooktap.cjs" },
    type: "module",
    types: "./index.d.ts",
    exports: { ".": { types: "./index.d.ts", default: "./index.js" } },
    files: ["bin/", "lib/", "index.js", "index.d.ts", "README.md", "LICENSE"],
    dependencies: { deno: denoVersion },
    engines: { node: ">=18" },
  };
}

/** Builds the package in a temp directory and packs it into `dist/`; resolves to the tgz's path. */
export async function pack(root: string = ROOT): Promise<string> {
  const version = denoJson.version;
  const stage = await Deno.makeTempDir({ prefix: "hooktap_pack_" });
  try {
    await Deno.mkdir(join(stage, "bin"));
    await Deno.mkdir(join(stage, "lib"));
    await run(Deno.execPath(), [
      "bundle",
      "--quiet",
      "--platform=deno",
      // One chunk per lazily imported command module: a command loads only what it runs, as from source.
      "--code-splitting",
      `--config=${join(root, "deno.json")}`,
      "--outdir",
      join(stage, "lib"),
      join(root, "main.ts"),
    ], root);
    await Deno.copyFile(join(root, "npm", "hooktap.cjs"), join(stage, "bin", "hooktap.cjs"));
    await Deno.chmod(join(stage, "bin", "hooktap.cjs"), 0o755);
    for (const file of ["index.js", "index.d.ts", "README.md"]) {
      await Deno.copyFile(join(root, "npm", file), join(stage, file));
    }
    await Deno.copyFile(join(root, "LICENSE"), join(stage, "LICENSE"));
    // The launcher runs Deno with --no-config and this import map: a config's value import of "hooktap" gets
    // this package's own index.js, whatever the project's package.json or deno.json say.
    await Deno.writeTextFile(
      join(stage, "lib", "import_map.json"),
      '{ "imports": { "hooktap": "../index.js" } }\n',
    );
    await Deno.writeTextFile(
      join(stage, "package.json"),
      JSON.stringify(packageJson(version, DENO_VERSION), null, 2) + "\n",
    );
    const dist = join(root, "dist");
    await Deno.mkdir(dist, { recursive: true });
    const name = (await run("npm", ["pack", "--silent", "--pack-destination", dist], stage)).trim();
    return join(dist, name);
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}

if (import.meta.main) {
  const file = await pack();
  const size = (await Deno.stat(file)).size;
  await Deno.stdout.write(new TextEncoder().encode(`${file} (${(size / 1024).toFixed(0)} KiB)\n`));
}
