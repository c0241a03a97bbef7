/** dev's hub lines: the reconnect names where the catch-up starts; a refused token says what to do, once. */
import assert from "node:assert/strict";
import type { HubState } from "../hub/cursor_file.ts";
import { createColors } from "./colors.ts";
import { hubChange } from "./hub_line.ts";

const plainColors = createColors(false);

const base: HubState = {
  v: 1,
  url: "http://127.0.0.1:19001/c/AAAAAAAAAAAAAAAAAAAAAA",
  channel: "AAAAAAAAAAAAAAAAAAAAAA",
  seq: 36,
  connected: true,
  waiting: 0,
  lastReceivedAt: null,
  updatedAt: "2026-11-28T00:00:00.000Z",
};

Deno.test("hubChange: connected again names the first event of the catch-up", () => {
  const lost = { ...base, connected: false, error: "the hub answered 503" };
  assert.match(hubChange(base, lost, plainColors)!, /connection lost \(the hub answered 503\); retrying/);
  const back = { ...base, waiting: 3 };
  assert.equal(
    hubChange(lost, back, plainColors),
    "Hub: connected again; catching up from event 37 (3 waiting).\n",
  );
  assert.equal(hubChange(lost, base, plainColors), "Hub: connected again; nothing waited at the hub.\n");
});

Deno.test("hubChange: a refused token is said once with what to do, again for a new token refused too", () => {
  const fix =
    "write the new token to /p/.hooktap/hub-token (chmod 600): dev reconnects as soon as it changes";
  const refused: HubState = { ...base, connected: false, tokenRefused: { fix, tries: 1 } };
  const line = hubChange(base, refused, plainColors)!;
  assert.equal(
    line,
    `Hub: the hub refused the token (rotated or revoked?): ${fix}. Events wait at the hub.\n`,
  );
  assert.doesNotMatch(line, /retrying/);
  assert.equal(hubChange(refused, { ...refused }, plainColors), undefined, "said once");
  const problem = {
    ...refused,
    tokenRefused: { fix, tries: 1, problem: "/p/.hooktap/hub-token can be read" },
  };
  assert.match(hubChange(refused, problem, plainColors)!, /cannot read the token again: .*can be read/);
  const again = { ...refused, tokenRefused: { fix, tries: 2 } };
  assert.match(hubChange(refused, again, plainColors)!, /refused the new token too/);
});
