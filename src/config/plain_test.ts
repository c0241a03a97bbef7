import assert from "node:assert/strict";
import { join } from "node:path";
import { isPlainConfig } from "./plain.ts";
import { configSource } from "./starter.ts";
import { loadConfig } from "./load.ts";

const PLAIN: Record<string, string> = {
  "the starter config": configSource(),
  "the typed starter config": configSource(undefined, { typed: true }),
  "constants, env secrets, comments, satisfies": `import type { Config } from "hooktap";
    // a comment with while (true) {} and await in it
    /* (block) new Function() */
    const secret = Deno.env.get("GITHUB_SECRET") ?? "dev-secret";
    const port: number = 8787
    const names: Config["endpoints"][number]["name"][] = ["gh"]
    export default {
      port,
      endpoints: [
        { name: "gh", path: "/gh", method: ["POST", "PUT"], provider: "github", secret },
        { name: 'st', path: \`/stripe\`, method: "POST", maxBodySize: 25 * 1024 * 1024, secret: process.env.S },
      ],
      ui: { port: port + 1 },
    } satisfies Config;`,
  "spreads, ternaries, optional reads": `const base = { method: "POST" } as const;
    const secret = Deno.env.get("X");
    export default { port: secret ? 1 : 2, endpoints: [{ ...base, name: "a", path: "/a", when: secret?.length }] };`,
  "a string holding code": `export default { port: 1, note: "while(true){} await import('x') \\" (" };`,
};

const NOT_PLAIN: Record<string, string> = {
  "an endless loop": "while (true) {} export default {};",
  "a for loop": "for (;;) {} export default {};",
  "a top-level await": "await new Promise(() => {}); export default {};",
  "an await in a spread": "export default { ...await x };",
  "a call": "export default { port: Number('1') };",
  "a parenthesised expression": "export default { port: (1) };",
  "an arrow without parentheses": "export default { respond: x => x };",
  "a function": "export default { respond() { return 1; } };",
  "a getter": "export default { get port() { return 1; } };",
  "a new": "export default { at: new Date };",
  "an import of code": 'import { x } from "./x.ts";\nexport default x;',
  "an import of a type among values": 'import { type Config } from "hooktap";\nexport default {};',
  "a side-effect import": 'import "./setup.ts";\nexport default {};',
  "a re-export": 'export { default } from "./other.ts";',
  "an assignment to a global": "const a = 1\nObject.prototype.polluted = 1\nexport default {};",
  "a compound assignment": "let a = 1; a += 1; export default {};",
  "an assignment after a declaration without one":
    "let a;\nObject.prototype.polluted = 1;\nexport default {};",
  "an assignment after a typed declaration": "let a: number;\nArray.prototype.x = 1\nexport default {};",
  "an assignment after a typed declaration, no semicolons":
    "let a: number\nArray.prototype.x = 1\nexport default {}",
  "an increment": "let a = 1; a++; export default {};",
  "a tagged template": "export default { port: String.raw`1` };",
  "a template with a substitution": "export default { path: `/${name}` };",
  "a regular expression or a division": "export default { port: 8 / 2 };",
  "an env read of a computed name": 'const n = "X"; export default { s: Deno.env.get(n) };',
  "another Deno call": 'export default { s: Deno.readTextFileSync("x") };',
  "a Deno property": "export default { s: Deno.pid };",
  "a unicode escape in a name": "export default { port: \\u0061wait };",
  "an unterminated string": 'export default { name: "a };',
  "an unterminated comment": "export default {}; /* ",
  "a class": "class A {} export default {};",
  "eval by name": "const e = eval; export default {};",
  "globalThis": "export default { g: globalThis.x };",
};

for (const [name, source] of Object.entries(PLAIN)) {
  Deno.test(`isPlainConfig() accepts ${name}`, () => assert.equal(isPlainConfig(source), true, source));
}
for (const [name, source] of Object.entries(NOT_PLAIN)) {
  Deno.test(`isPlainConfig() sends ${name} to the worker`, () =>
    assert.equal(isPlainConfig(source), false, source));
}

Deno.test("a plain config loads here and in the worker to the same resolved config", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const source = PLAIN["constants, env secrets, comments, satisfies"]!.replace(
      'import type { Config } from "hooktap";',
      "",
    ).replace(" satisfies Config", "");
    assert.equal(isPlainConfig(source), true);
    await Deno.writeTextFile(join(dir, "hooktap.config.ts"), source);
    const here = await loadConfig({ cwd: dir }); // first load of the file in this process: here
    const worker = await loadConfig({ cwd: dir }); // a second load of one URL goes to a worker
    assert.ok(here !== null && worker !== null);
    assert.deepEqual(here, worker);
    assert.equal(here.endpoints.length, 2);
    // The second load read the file anew: an edit between loads is seen.
    await Deno.writeTextFile(join(dir, "hooktap.config.ts"), source.replace("8787", "9999"));
    assert.equal((await loadConfig({ cwd: dir }))?.port, 9999);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
