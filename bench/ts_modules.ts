/**
 * What a TypeScript module costs `deno run` beside the same code as
 * JavaScript (issue 36, target 4 from a checkout): 40 modules in a chain,
 * each of 60 small functions, run as `.ts`, as the JavaScript Deno emits for
 * them (its inline source map kept), and as that JavaScript without the map,
 * each beside the plain `.js` modules, in turns (A B A B ...). The cost is the
 * source map Deno inlines into every module it emits; doc comments cost
 * nothing (the fourth row).
 *
 *     deno run -A bench/ts_modules.ts [--runs 20]
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { runOnce } from "./timing.ts";

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string", default: "20" } } });
const runs = Number(values.runs);
const MODULES = 40;
const DENO = Deno.execPath();

const code = (ts: boolean) =>
  Array.from(
    { length: 60 },
    (_, j) =>
      ts
        ? `export function f${j}(x: number): number { const a: number[] = [x, ${j}]; return a.reduce((s, v) => s + v * ${j}, 0); }`
        : `export function f${j}(x) { const a = [x, ${j}]; return a.reduce((s, v) => s + v * ${j}, 0); }`,
  ).join(
    "\n",
  );
const COMMENT = `/**\n${
  Array.from({ length: 60 }, (_, j) => ` * Documentation, line ${j}, as a module's comment runs.`).join("\n")
}\n */\n`;

/** Writes a chain of modules `name1.ext` → `name2.ext` → ... and a main that imports the first. */
async function chain(dir: string, name: string, ext: "ts" | "js", body: string): Promise<string> {
  for (let i = 1; i <= MODULES; i++) {
    const next = i < MODULES ? `import { v${i + 1} } from "./${name}${i + 1}.${ext}";\n` : "";
    const value = i < MODULES ? `v${i + 1} + 1` : "1";
    await Deno.writeTextFile(
      join(dir, `${name}${i}.${ext}`),
      `${next}${body}\nexport const v${i} = ${value};\n`,
    );
  }
  const main = join(dir, `main_${name}.${ext}`);
  await Deno.writeTextFile(main, `import { v1 } from "./${name}1.${ext}";\nif (v1 < 0) console.log(v1);\n`);
  return main;
}

/** The JavaScript `deno run` emitted for `ts`'s modules, read back from its cache, as `.js` files. */
async function emitted(dir: string, withMap: boolean): Promise<string> {
  const info = new Deno.Command(DENO, { args: ["info", "--json"], stdout: "piped" }).outputSync();
  const { denoDir } = JSON.parse(new TextDecoder().decode(info.stdout)) as { denoDir: string };
  const name = withMap ? "em" : "en";
  for (let i = 0; i <= MODULES; i++) {
    const source = i === 0 ? "main_ts.ts" : `ts${i}.ts`;
    let text = await Deno.readTextFile(join(denoDir, "gen", "file", dir, `${source}.js`));
    text = text.replaceAll(/\.\/ts(\d+)\.ts/g, `./${name}$1.js`);
    if (!withMap) {
      text = text.split("\n").filter((l) => !/^\/\/[#@] sourceMappingURL|^\/\/ denoCacheMetadata/.test(l))
        .join("\n");
    }
    await Deno.writeTextFile(join(dir, i === 0 ? `main_${name}.js` : `${name}${i}.js`), text);
  }
  return join(dir, `main_${name}.js`);
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

async function paired(a: string, b: string, dir: string): Promise<{ a: number; b: number; ratio: number }> {
  const as: number[] = [], bs: number[] = [], ratios: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const ra = await runOnce([DENO, "run", "--quiet", a], dir, dir);
    const rb = await runOnce([DENO, "run", "--quiet", b], dir, dir);
    if (i === 0) continue; // warm-up pair (the first run of a .ts emits and caches it)
    as.push(ra.ms), bs.push(rb.ms), ratios.push(ra.ms / rb.ms);
  }
  return { a: median(as), b: median(bs), ratio: median(ratios) };
}

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "hooktap_ts_modules_" }));
try {
  const js = await chain(dir, "js", "js", code(false));
  const ts = await chain(dir, "ts", "ts", code(true));
  const commented = await chain(dir, "tc", "ts", COMMENT + code(true));
  await runOnce([DENO, "run", "--quiet", ts], dir, dir); // emits them
  const withMap = await emitted(dir, true);
  const withoutMap = await emitted(dir, false);
  const rows: [string, string, string][] = [
    [".ts modules", ts, js],
    ["Deno's emitted .js, its inline source map kept", withMap, js],
    ["Deno's emitted .js, the source map line removed", withoutMap, js],
    [".ts modules with a 60-line doc comment each, beside the same without", commented, ts],
  ];
  // deno-lint-ignore no-console
  console.log(`${MODULES} modules of 60 functions, ${runs} pairs each (median wall ms; ratio pair by pair):`);
  for (const [label, a, b] of rows) {
    const r = await paired(a, b, dir);
    // deno-lint-ignore no-console
    console.log(`  ${label}: ${r.a.toFixed(1)} ms beside ${r.b.toFixed(1)} ms, ${r.ratio.toFixed(2)}×`);
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
