import assert from "node:assert/strict";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { basenameOf, dirnameOf, fileUrl, joinPath, pathInside, resolvePath } from "./path.ts";

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

Deno.test("fileUrl() names the same file as node:url's pathToFileURL, escapes included", () => {
  const cases = [
    "/home/me/app/hooktap.config.ts",
    "/tmp/with space/a#b?c.ts",
    "/tmp/100%/x%41.ts",
    "/tmp/café/ünï.ts",
    "/tmp/tab\there/new\nline\r.ts",
    "relative/dir/../hooktap.config.ts",
    "/tmp/[brackets]/;semi=colon,&amp'quote\".ts",
  ];
  for (const path of cases) {
    assert.equal(fileURLToPath(fileUrl(path)), resolve(path), path);
    assert.equal(decodeURIComponent(fileUrl(path).href), decodeURIComponent(pathToFileURL(path).href), path);
  }
  assert.equal(fileUrl("/tmp/a b/100%.ts").href, "file:///tmp/a%20b/100%25.ts");
});

Deno.test("dirnameOf() and basenameOf() agree with node:path", () => {
  const paths = [
    "/a/b",
    "/a/b/",
    "/a",
    "/",
    "a",
    "a/b",
    "a//b",
    "a/b//",
    ".",
    "..",
    "../x",
    "/tmp/p/hooktap.config.ts",
    "",
  ];
  for (const path of paths) {
    assert.equal(dirnameOf(path), dirname(path), `dirname ${JSON.stringify(path)}`);
    assert.equal(basenameOf(path), basename(path), `basename ${JSON.stringify(path)}`);
  }
});
