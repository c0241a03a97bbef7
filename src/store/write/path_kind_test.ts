import assert from "node:assert/strict";
import { join } from "node:path";
import { KvLinkError, prepareKvFile } from "../../hub/kv_file.ts";
import { StoreError } from "../../errors.ts";
import { openNoFollow } from "./no_follow.ts";
import { lstatIfThere, type PathKind, pathKind } from "./path_kind.ts";

/** A temp directory with one path of each kind. */
async function plant(dir: string): Promise<Record<PathKind, string>> {
  const file = join(dir, "file");
  await Deno.writeTextFile(file, "one name");
  const linked = join(dir, "linked");
  await Deno.writeTextFile(linked, "two names");
  await Deno.link(linked, join(dir, "linked-too"));
  await Deno.symlink(join(dir, "nowhere"), join(dir, "dangling"));
  await Deno.mkdir(join(dir, "dir"));
  const fifo = join(dir, "fifo");
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.ok(made.success, "mkfifo");
  return {
    "file": file,
    "hard link": linked,
    "symbolic link": join(dir, "dangling"),
    "directory": join(dir, "dir"),
    "other": fifo,
  };
}

Deno.test("pathKind tells a file, a hard link, a dangling symbolic link, a directory and a FIFO apart", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths = await plant(dir);
    for (const [kind, path] of Object.entries(paths)) {
      assert.equal(pathKind((await lstatIfThere(path))!), kind);
    }
    assert.equal(await lstatIfThere(join(dir, "missing")), undefined);
    await Deno.writeTextFile(join(dir, "f"), "");
    await assert.rejects(() => lstatIfThere(join(dir, "f", "under-a-file")), Deno.errors.NotADirectory);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the hub's --kv refusal and the store's refuse the same links: symbolic and hard", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths = await plant(dir);
    for (const kind of ["symbolic link", "hard link"] as const) {
      await assert.rejects(() => prepareKvFile(paths[kind]), KvLinkError, kind);
      await assert.rejects(() => openNoFollow(paths[kind], "the file", { append: true }), StoreError, kind);
    }
    // A file of its own is taken by both.
    (await openNoFollow(paths.file, "the file", { append: true })).close();
    await prepareKvFile(paths.file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
