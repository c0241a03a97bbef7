import assert from "node:assert/strict";
import { loadCommands, loadProgram, programFor } from "./cli.ts";

Deno.test("each command's declaration is loaded by its own name, in help order with the hidden ones last", async () => {
  const commands = await loadCommands();
  const names = commands.map((c) => c.name);
  assert.equal(new Set(names).size, names.length);
  for (const name of names) {
    const program = await programFor([name, "--help"]);
    assert.deepEqual(program.commands.map((c) => c.name), [name]);
    assert.equal(program.commands[0], commands.find((c) => c.name === name), name);
  }
  const hidden = commands.map((c) => c.hidden === true);
  assert.deepEqual(hidden, [...hidden].sort((a, b) => Number(a) - Number(b)));
  assert.ok(names.includes("trigger") && names.includes("complete"));
});

Deno.test("a word that names no command, an option first, or nothing gets the program with every command", async () => {
  const all = await loadProgram();
  for (const args of [[], ["--help"], ["-c", "x.ts", "logs"], ["help", "logs"], ["trgger"], ["toString"]]) {
    const program = await programFor(args);
    assert.deepEqual(program.commands.map((c) => c.name), all.commands.map((c) => c.name), args.join(" "));
    assert.equal(program.version, all.version);
    assert.equal(program.description, all.description);
    assert.equal(program.after, all.after);
  }
});
