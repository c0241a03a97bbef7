import assert from "node:assert/strict";
import { join } from "node:path";
import { startReceiver } from "../../testing/mod.ts";
import { writeFailureOf } from "./write_fix.ts";

Deno.test("a failed write's fix names the data directory it was in, .hooktap when none is given", () => {
  const full = new Error("No space left on device (os error 28)");
  assert.match(writeFailureOf(full).fix, /disk that holds \.hooktap \(df -h \.hooktap/);
  assert.match(writeFailureOf(full, "recorded").fix, /disk that holds recorded \(df -h recorded/);
  assert.match(writeFailureOf(new Deno.errors.PermissionDenied("x"), "rec").fix, /make rec and its files/);
  assert.match(writeFailureOf(new Error("odd"), "rec").fix, /may write in rec$/);
});

Deno.test("startReceiver({ dir }) that cannot be made names that directory in its fix, not .hooktap", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(tmp, "a-file"), "");
    await assert.rejects(
      startReceiver({ dir: join(tmp, "a-file", "recorded") }),
      (error: Error) => {
        assert.match(error.message, /recorded/);
        assert.doesNotMatch(error.message, /\.hooktap/);
        return true;
      },
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
