import assert from "node:assert/strict";
import { COMMANDS } from "../cli.ts";
import { UsageError } from "../errors.ts";
import { commandHelp } from "./help.ts";
import { HELP, parseCommand } from "./parse.ts";
import {
  choice,
  type CommandSpec,
  defineCommand,
  defineOptions,
  duration,
  type Input,
  integer,
  path,
  port,
  rate,
  text,
  time,
  url,
} from "./spec.ts";

const options = defineOptions({
  timeout: { kind: duration(), description: "longest wait", default: "30s" },
  age: { kind: duration({ placeholder: "age", bare: null, zero: true }), description: "how old" },
  since: { kind: time(), description: "from when" },
  limit: { short: "n", kind: integer({ placeholder: "count" }), description: "how many", default: "20" },
  retries: { kind: integer({ min: 1, max: 20 }), description: "how often" },
  port: { short: "p", kind: port(), description: "where" },
  rate: { kind: rate(), description: "how fast" },
  to: { kind: url(), description: "whither" },
  format: { short: "f", kind: choice(["har", "curl", "no-secret"], "format"), description: "as what" },
  file: { kind: path("file"), description: "which file" },
  grep: { kind: text(), description: "what text" },
  tag: { kind: integer(), repeatable: true, description: "tags" },
  outOfOrder: { description: "shuffle" },
  seed: { kind: integer(), description: "the shuffle's seed", requires: ["outOfOrder"] },
  count: { description: "count them", conflicts: ["follow"] },
  follow: { description: "keep going" },
  set: { value: "path=value", repeatable: true, description: "change a field" },
  setNew: { description: "add a field", requires: ["set"] },
  ui: { negatable: true, description: "serve the page", conflicts: ["port"] },
});

const SPEC = defineCommand({
  name: "try",
  description: "a command to parse against",
  options,
  load: () => Promise.resolve({ run: () => Promise.resolve() }),
});

/** The options `words` parse to, typed as the action gets them. */
function parse(...words: string[]): Input<typeof options>["options"] {
  const input = parseCommand(SPEC as unknown as CommandSpec, words);
  assert.notEqual(input, HELP);
  return (input as unknown as Input<typeof options>).options;
}

/** The usage error `words` raise, with its message. */
function refused(words: string[], message: RegExp): void {
  assert.throws(() => parseCommand(SPEC as unknown as CommandSpec, words), (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.match(error.message, message);
    return true;
  });
}

Deno.test("duration: milliseconds from 30s, 500ms, 1h30m, a bare number as seconds; the default read the same way", () => {
  assert.equal(parse().timeout, 30_000);
  assert.equal(parse("--timeout", "500ms").timeout, 500);
  assert.equal(parse("--timeout=1h30m").timeout, 5_400_000);
  assert.equal(parse("--timeout", "2").timeout, 2000);
  refused(
    ["--timeout", "soon"],
    /^--timeout must be a duration above 0 like 30s, 500ms or 2m \(a bare number is seconds\), got "soon"\.$/,
  );
  refused(["--timeout", "0s"], /--timeout must be a duration above 0/);
  // One that needs its unit and may be 0.
  assert.equal(parse("--age", "7d").age, 7 * 86_400_000);
  assert.equal(parse("--age", "0s").age, 0);
  refused(["--age", "7"], /^--age must be a duration like 30s, 500ms or 2m \(with its unit\), got "7"\.$/);
});

Deno.test("time: a duration back from now, or an ISO time, read as a Date", () => {
  const before = Date.now();
  const since = parse("--since", "2h").since!;
  assert.ok(since instanceof Date);
  assert.ok(Math.abs(before - 2 * 3_600_000 - since.getTime()) < 60_000);
  assert.equal(parse("--since", "2024-05-01T10:00:00Z").since?.toISOString(), "2024-05-01T10:00:00.000Z");
  refused(
    ["--since", "yesterday"],
    /^--since must be a duration like 10m, 2h or 1d, or an ISO time like .*, got "yesterday"\.$/,
  );
  refused(["--since", "5"], /--since must be a duration/); // a bare number is not a time
  // An impossible day is refused, not rolled over into the next month (2026-02-30 was March 2).
  refused(["--since", "2026-02-30"], /--since must be a duration .*got "2026-02-30"/);
  refused(["--since", "2026-04-31T10:00:00Z"], /--since must be a duration/);
  assert.equal(parse("--since", "2024-02-29").since?.toISOString(), "2024-02-29T00:00:00.000Z");
});

Deno.test("integer and port: whole numbers within their range, named with the option and what it expects", () => {
  assert.equal(parse().limit, 20);
  assert.equal(parse("-n", "3").limit, 3);
  assert.equal(parse("-n3").limit, 3);
  refused(["--limit", "ten"], /^--limit must be a whole number, got "ten"\.$/);
  refused(["-n", "-1"], /^--limit must be a whole number, got "-1"\.$/);
  assert.equal(parse("--retries", "20").retries, 20);
  refused(["--retries", "21"], /^--retries must be a whole number from 1 to 20, got "21"\.$/);
  refused(["--retries", "0"], /--retries must be a whole number from 1 to 20/);
  assert.equal(parse("-p", "0").port, 0);
  assert.equal(parse("--port", "65535").port, 65535);
  refused(
    ["--port", "70000"],
    /^--port must be a whole number from 0 to 65535 \(0 picks a free port\), got "70000"\.$/,
  );
  assert.deepEqual(parse("--tag", "1", "--tag", "2").tag, [1, 2]);
  refused(["--tag", "1", "--tag", "x"], /--tag must be a whole number, got "x"/);
});

Deno.test("rate: events per second above 0, 10 or 2.5/s", () => {
  assert.equal(parse("--rate", "10").rate, 10);
  assert.equal(parse("--rate", "2.5/s").rate, 2.5);
  refused(
    ["--rate", "fast"],
    /^--rate must be a number of events per second above 0 like 10 or 2\.5\/s, got "fast"\.$/,
  );
  refused(["--rate", "0"], /--rate must be a number of events per second above 0/);
});

Deno.test("url: an http(s) URL with its scheme, kept as typed", () => {
  assert.equal(parse("--to", "http://localhost:3000/hook").to, "http://localhost:3000/hook");
  assert.equal(parse("--to", "https://example.com/a?b=1").to, "https://example.com/a?b=1");
  refused(
    ["--to", "localhost:3000/hook"],
    /^--to needs a scheme: did you mean http:\/\/localhost:3000\/hook \?/,
  );
  refused(
    ["--to", "ftp://example.com/x"],
    /^--to must be an http:\/\/ or https:\/\/ URL, got "ftp:\/\/example.com\/x"\.$/,
  );
  refused(
    ["--to", "not a url"],
    /^--to must be a full URL like http:\/\/localhost:3000\/webhook, got "not a url"\.$/,
  );
});

Deno.test("choice: one of its values (any case, _ as -), else the list and the nearest", () => {
  assert.equal(parse("-f", "har").format, "har");
  assert.equal(parse("--format", "CURL").format, "curl");
  assert.equal(parse("--format", "No_Secret").format, "no-secret");
  refused(
    ["--format", "hra"],
    /^--format must be one of har, curl, no-secret, got "hra" \(did you mean har\?\)\.$/,
  );
  refused(["--format", "xml"], /^--format must be one of har, curl, no-secret, got "xml"\.$/);
});

Deno.test("path and text: taken as typed; a missing value is still refused", () => {
  assert.equal(parse("--file", "a b/c.json").file, "a b/c.json");
  assert.equal(parse("--grep", "cus_42").grep, "cus_42");
  refused(["--file"], /option '--file <file>' needs a value/);
});

Deno.test("requires: an option given without the one it goes with is refused, in one form", () => {
  assert.equal(parse("--out-of-order", "--seed", "7").seed, 7);
  refused(["--seed", "7"], /^--seed goes with --out-of-order: give both, or leave --seed out\.$/);
  refused(["--set-new"], /^--set-new goes with --set <path=value>: give both, or leave --set-new out\.$/);
  assert.equal(parse("--set", "a=1", "--set-new").setNew, true);
});

Deno.test("conflicts: two options that cannot go together are refused, in one form, either way round", () => {
  refused(["--count", "--follow"], /^--count and --follow cannot be given together: choose one\.$/);
  refused(["--follow", "--count"], /^--count and --follow cannot be given together: choose one\.$/);
  assert.equal(parse("--count").count, true);
  // --no-ui is not --ui: a negated flag does not count as given.
  refused(["--ui", "-p", "1"], /--ui and --port cannot be given together/);
  assert.equal(parse("--no-ui", "-p", "1").port, 1);
});

Deno.test("help shows each kind's placeholder and a choice's values", () => {
  const help = commandHelp(SPEC as unknown as CommandSpec, 200);
  assert.match(help, /--timeout <duration> +longest wait \(default: "30s"\)/);
  assert.match(help, /--since <when>/);
  assert.match(help, /-n, --limit <count>/);
  assert.match(help, /-p, --port <port>/);
  assert.match(help, /--rate <n\/s>/);
  assert.match(help, /--to <url>/);
  assert.match(help, /-f, --format <format> +as what \(choices: "har", "curl", "no-secret"\)/);
  assert.match(help, /--file <file>/);
  assert.match(help, /--out-of-order +shuffle/);
});

Deno.test("every command's relations name options it declares, and its defaults are valid values", () => {
  for (const spec of COMMANDS) {
    // Parsing nothing reads every default by its kind and checks that the relations name declared options.
    const args = (spec.arguments ?? []).filter((a) => a.required).map((a) => a.choices?.[0] ?? "x");
    const input = parseCommand(spec, args);
    assert.notEqual(input, HELP, spec.name);
    for (const [key, option] of Object.entries(spec.options)) {
      for (const other of [...(option.requires ?? []), ...(option.conflicts ?? [])]) {
        assert.ok(other in spec.options, `${spec.name}: --${key} names "${other}"`);
      }
    }
  }
});

Deno.test("a single-value option given twice with different values is refused, not the last kept silently", () => {
  refused(
    ["-n", "2", "-n", "3"],
    /^--limit was given twice, as "2" and as "3": it takes one value\. Give it once\.$/,
  );
  refused(["--grep", "a", "--grep=b"], /^--grep was given twice, as "a" and as "b"/);
  assert.equal(parse("-n", "2", "--limit", "2").limit, 2); // the same value twice is harmless
  assert.deepEqual(parse("--tag", "1", "--tag", "2").tag, [1, 2]); // a repeatable one collects them
});
