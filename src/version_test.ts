import assert from "node:assert/strict";
import { denoTooOld, OLDEST_DENO } from "./version.ts";

Deno.test("denoTooOld refuses releases before OLDEST_DENO and accepts it and every later one", () => {
  for (const old of ["1.46.3", "2.0.0", "2.1.4", "2.5.6", "2.8.3"]) {
    assert.match(
      denoTooOld(old) ?? "",
      new RegExp(`needs Deno ${OLDEST_DENO} or newer, and this is Deno ${old}\\.`),
    );
  }
  for (const ok of [OLDEST_DENO, "2.9.6", "2.10.0", "2.10.0-rc.1", "3.0.0", "2.9.6+1a2b3c"]) {
    assert.equal(denoTooOld(ok), undefined, ok);
  }
});
