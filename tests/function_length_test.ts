/**
 * No function in src/ (tests and generated `*.gen.ts` files aside) is over
 * 150 lines: function declarations, methods, accessors, constructors, and
 * function or arrow expressions (assigned to a const, passed as a callback,
 * or a property of an object), each counted from its first line to its last.
 * A long function is split into named steps; the walk uses the TypeScript
 * compiler's own parser.
 */
import assert from "node:assert/strict";
import ts from "typescript";

const ROOT = new URL("../", import.meta.url);
const LIMIT = 150;

/**
 * Functions allowed over the limit, `path:name` → why. Each is a debt, listed so it is seen; the last test
 * fails when one is fixed and still listed.
 */
const ALLOWED: ReadonlyMap<string, string> = new Map([]);

/** A readable name for a function node: its own, or what it is assigned to, or `<anonymous>`. */
function nameOf(node: ts.Node, file: ts.SourceFile): string {
  const own = (node as { name?: ts.Node }).name;
  if (own !== undefined) return own.getText(file);
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) {
    return parent.name.getText(file);
  }
  return "<anonymous>";
}

/** Every function in `code` over `limit` lines: `name (N lines, line L)`. */
export function longFunctions(
  path: string,
  code: string,
  limit = LIMIT,
): { name: string; lines: number; line: number }[] {
  const file = ts.createSourceFile(path, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: { name: string; lines: number; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body !== undefined) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > limit) out.push({ name: nameOf(node, file), lines, line: start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) out.push(...await sources(`${path}/`));
    else if (
      /\.tsx?$/.test(entry.name) && !/_test\.tsx?$/.test(entry.name) && !/\.gen\.ts$/.test(entry.name)
    ) {
      out.push(path);
    }
  }
  return out.sort();
}

Deno.test(`no function in src/ is over ${LIMIT} lines (tests and *.gen.ts aside)`, async () => {
  const problems: string[] = [];
  for (const path of await sources("src/")) {
    for (const f of longFunctions(path, await Deno.readTextFile(new URL(path, ROOT)))) {
      if (!ALLOWED.has(`${path}:${f.name}`)) problems.push(`${path}:${f.line} ${f.name} (${f.lines} lines)`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("the walk finds long declarations, methods and arrows, and names them (a test of the test)", () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
  const code = [
    `export function long() {\n${body(150)}\n}`,
    `function short() {\n${body(10)}\n}`,
    `const arrow = () => {\n${body(149)}\n};`,
    `class C {\n  method() {\n${body(200)}\n  }\n}`,
    `run({ handler: async () => {\n${body(160)}\n} });`,
  ].join("\n");
  assert.deepEqual(longFunctions("x.ts", code).map((f) => `${f.name} ${f.lines}`), [
    "long 152",
    "arrow 151",
    "method 202",
    "handler 162",
  ]);
});

Deno.test("every allowed long function still exists and is still long", async () => {
  for (const key of ALLOWED.keys()) {
    const [path, name] = key.split(":") as [string, string];
    const found = longFunctions(path, await Deno.readTextFile(new URL(path, ROOT)));
    assert.ok(
      found.some((f) => f.name === name),
      `${key} is no longer over ${LIMIT} lines: remove it from ALLOWED`,
    );
  }
});
