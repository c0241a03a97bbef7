import assert from "node:assert/strict";
import { join, relative, resolve } from "node:path";
import { joinPath, pathInside, resolvePath } from "./path.ts";

Deno.test("joinPath() and resolvePath() agree with node:path", () => {
  const cases: string[][] = [
    ["/a", "b"],
    ["/a/", "./b/", "c"],
    ["/a/b", "../c"],
    ["a", "..", "..", "b"],
    ["/", ".hooktap"],
    ["/x/y", "/abs/z"],
    ["rel/dir", ".hooktap", "index.json"],
    [""],
  ];
  for (const parts of cases) {
    assert.equal(joinPath(...parts), join(...parts), `join ${parts}`);
    assert.equal(resolvePath(...parts), resolve(...parts), `resolve ${parts}`);
  }
});

Deno.test("pathInside() is node:path's relative for paths inside, else the absolute path", () => {
  assert.equal(pathInside("/p", "/p/.hooktap"), relative("/p", "/p/.hooktap"));
  assert.equal(pathInside("/p", "/p"), "");
  assert.equal(pathInside("/p/", "/p/a/b"), "a/b");
  assert.equal(pathInside("/p", "/q/.hooktap"), "/q/.hooktap");
  assert.equal(pathInside("/p", "/pp/x"), "/pp/x");
});
