import assert from "node:assert/strict";
import { z } from "zod";
import { inputWords, reword } from "./wording.ts";

const WORDS = inputWords({
  headers: z.array(z.string()).optional(),
  set: z.array(z.string()).optional(),
  set_new: z.boolean().optional(),
  resign: z.boolean().optional(),
  method: z.string().optional(),
  timeout_seconds: z.number().optional(),
});

Deno.test("inputWords: each input, booleans marked", () => {
  assert.deepEqual([...WORDS], [
    ["headers", false],
    ["set", false],
    ["set_new", true],
    ["resign", true],
    ["method", false],
    ["timeout_seconds", false],
  ]);
});

Deno.test("reword: the CLI's options become the tool's inputs, its commands the sibling tools", () => {
  // The messages of src/send/overrides.ts, src/send/resend.ts, src/store/read/, src/trigger/registry.ts.
  const cases: [string, string][] = [
    [
      '-H expects "Name: value" (an empty value removes the header), got "X-Evil".',
      '`headers` expects "Name: value" (an empty value removes the header), got "X-Evil".',
    ],
    [
      '--set nope.x: the body has no field "nope"; check the path, or add --set-new to create it',
      '`set` nope.x: the body has no field "nope"; check the path, or add `set_new: true` to create it',
    ],
    [
      "the app will reject it; send it with --resign to sign it afresh",
      "the app will reject it; send it with `resign: true` to sign it afresh",
    ],
    ["Use `--resign`.", "Use `resign: true`."],
    [
      "No answer from x within 30 s (--timeout to wait longer).",
      "No answer from x within 30 s (`timeout_seconds` to wait longer).",
    ],
    [
      '-X/--method must be an HTTP method like POST, got "G E T".',
      '`method` must be an HTTP method like POST, got "G E T".',
    ],
    [
      "No event with id evt_x in .hooktap/events.jsonl. Run `npx hooktap logs` to list the stored events.",
      "No event with id evt_x in .hooktap/events.jsonl. Run search_events to list the stored events.",
    ],
    [
      '"nope" is not an event id; `hooktap logs` lists them.',
      '"nope" is not an event id; search_events lists them.',
    ],
    [
      "did you mean push? Run `./node_modules/.bin/hooktap trigger --list github` to see them all.",
      'did you mean push? Run list_triggers {"provider": "github"} to see them all.',
    ],
    ["Run `npx hooktap trigger --list` for every provider.", "Run list_triggers for every provider."],
  ];
  for (const [cli, tool] of cases) assert.equal(reword(cli, WORDS), tool);
});

Deno.test("reword: an option the tool does not take, and words that only look like one, stay", () => {
  for (
    const text of [
      "use --resign-invalid to re-sign it anyway",
      "--body-file replaces the whole body",
      "X-Hub-Signature-256 and x-H and a--set",
      "2024-05-01T10:00:00Z",
    ]
  ) {
    assert.equal(reword(text, WORDS), text);
  }
  assert.equal(reword("--stale has nothing to make stale", new Map()), "--stale has nothing to make stale");
});
