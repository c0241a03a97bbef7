import assert from "node:assert/strict";
import { splitUrl } from "./url.ts";

const viaUrl = (url: string) => {
  const parsed = new URL(url);
  return { path: parsed.pathname, query: parsed.search.slice(1) };
};

Deno.test("splitUrl gives what the URL parser gives, for plain and awkward paths and queries", () => {
  const paths = [
    "/",
    "/webhook",
    "/hooks/github",
    "//double",
    "/a/./b",
    "/a/../b",
    "/%2e%2E/x",
    "/a%20b",
    "/a b",
    "/é",
    "/a\\b",
    "/v1.0/hook",
    "/a'b",
    '/a"b',
    "/a<b>",
    "/a{b}",
    "/a`b",
    "/a#frag",
    "/:id/@x",
    "/~user/!$&()*+,;=",
    "/a\tb",
    "/.",
    "/..",
    "/a/.",
    "/%",
    "/%zz",
  ];
  const queries = [
    "",
    "?",
    "?a=1",
    "?a=1&b=2",
    "?a b",
    "?a'b",
    '?a"b',
    "?x=%20",
    "?x=é",
    "?a=1#f",
    "?a?b",
    "?<>",
    "?a.b",
  ];
  for (const host of ["http://127.0.0.1:8787", "https://example.com", "http://[::1]:9"]) {
    for (const path of paths) {
      for (const query of queries) {
        const url = host + path + query;
        let expected;
        try {
          expected = viaUrl(url);
        } catch {
          continue; // not a URL a server hands over
        }
        assert.deepEqual(splitUrl(url), expected, url);
      }
    }
  }
});
