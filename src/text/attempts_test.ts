import assert from "node:assert/strict";
import { attemptsPhrase } from "./attempts.ts";

Deno.test("attempts read as dev's tries and the replays apart", () => {
  assert.equal(attemptsPhrase({ attempts: 0 }, "tries"), "");
  assert.equal(attemptsPhrase({ attempts: 1 }, "tries"), "1 try");
  assert.equal(attemptsPhrase({ attempts: 3 }, "tries"), "3 tries");
  assert.equal(attemptsPhrase({ attempts: 2, replays: 1 }, "tries"), "1 try, 1 replay");
  assert.equal(attemptsPhrase({ attempts: 5, replays: 2 }, "attempts"), "3 attempts, 2 replays");
  assert.equal(attemptsPhrase({ attempts: 1, replays: 1 }, "attempts"), "1 replay");
  assert.equal(attemptsPhrase({ attempts: 1 }, "attempts"), "1 attempt");
});
