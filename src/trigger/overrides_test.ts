import assert from "node:assert/strict";
import { applySets, encodeBody, parseSet } from "./overrides.ts";

Deno.test("parseSet() reads the value as JSON when it parses, else as text", () => {
  assert.deepEqual(parseSet("a.b=5000"), { path: "a.b", value: 5000, text: "5000" });
  assert.deepEqual(parseSet("a=hello"), { path: "a", value: "hello", text: "hello" });
  assert.deepEqual(parseSet('a={"x":[1]}').value, { x: [1] });
  assert.throws(() => parseSet("nothing"), /expects path=value/);
  assert.throws(() => parseSet("=1"), /expects path=value/);
});

Deno.test("applySets() changes existing JSON fields and array items, refuses new ones unless --set-new", () => {
  const body = { kind: "json" as const, value: { a: { b: 1, list: [{ c: 1 }] } } };
  const out = applySets(body, [parseSet("a.b=2"), parseSet("a.list[0].c=3")], [parseSet("a.d.e=true")]);
  assert.deepEqual(out.kind === "json" && out.value, { a: { b: 2, list: [{ c: 3 }], d: { e: true } } });
  assert.deepEqual(body.value.a.b, 1, "the draft is not changed");
  assert.throws(() => applySets(body, [parseSet("a.x=1")], []), /a has no field "x".*--set-new a\.x=/);
  assert.throws(() => applySets(body, [parseSet("a.b.c=1")], []), /a\.b is not an object/);
});

Deno.test("applySets() on a form sets parameters by name; encodeBody() encodes forms and indented JSON", () => {
  const form = applySets({ kind: "form", value: [["A", "1"], ["B", "2"]] }, [parseSet("B=x y")], [
    parseSet("C=3"),
  ]);
  assert.equal(new TextDecoder().decode(encodeBody(form)), "A=1&B=x+y&C=3");
  assert.throws(
    () => applySets({ kind: "form", value: [["A", "1"]] }, [parseSet("Z=1")], []),
    /no parameter "Z"/,
  );
  assert.equal(
    new TextDecoder().decode(encodeBody({ kind: "json", value: { a: 1 }, indent: 2 })),
    '{\n  "a": 1\n}',
  );
  assert.throws(
    () => applySets({ kind: "raw", bytes: new Uint8Array() }, [parseSet("a=1")], []),
    /--body-file/,
  );
});
