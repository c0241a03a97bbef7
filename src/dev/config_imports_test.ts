import assert from "node:assert/strict";
import { join } from "node:path";
import { localImports } from "./config_imports.ts";

Deno.test("localImports(): relative imports, transitively and once each; packages, URLs and the file itself not", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(join(dir, "lib"));
  const config = join(dir, "hooktap.config.ts");
  await Deno.writeTextFile(
    config,
    `import type { Config } from "hooktap";\nimport { a } from "./lib/a.ts";\nexport * from './lib/b.ts';\n` +
      `import "https://example.com/x.ts";\nconst c = await import("./lib/c.ts");\n`,
  );
  await Deno.writeTextFile(
    join(dir, "lib", "a.ts"),
    `import { b } from "./b.ts";\nimport "../hooktap.config.ts";\n`,
  );
  await Deno.writeTextFile(join(dir, "lib", "b.ts"), "export const b = 1;\n");
  await Deno.writeTextFile(join(dir, "lib", "c.ts"), "export const c = 1;\n");
  const found = await localImports(config);
  assert.deepEqual(found.sort(), ["a.ts", "b.ts", "c.ts"].map((f) => join(dir, "lib", f)));
  assert.deepEqual(await localImports(config, 1), [join(dir, "lib", "a.ts")], "bounded");
  await Deno.remove(dir, { recursive: true });
});
