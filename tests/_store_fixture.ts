/**
 * Test fixture for the store readers: writes a log of generated records
 * (with real ids, in order) to a temp file.
 * @module
 */
import { createIdFactory } from "../src/event/id.ts";
import { buildEvent, type CapturedEvent, eventLine } from "../src/event/record.ts";
import { type StorePaths, storePaths } from "../src/store/paths.ts";
import { openStoreReader, type StoreReader } from "../src/store/read/reader.ts";

/** A generated event: endpoint `endpoints[i % n]`, one second apart from `start`. */
export function makeEvents(
  count: number,
  options: { endpoints?: string[]; start?: Date } = {},
): CapturedEvent[] {
  const endpoints = options.endpoints ?? ["default"];
  const start = (options.start ?? new Date("2024-05-01T10:00:00Z")).getTime();
  const newId = createIdFactory();
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(start + i * 1000);
    return buildEvent({
      id: newId(at),
      endpoint: endpoints[i % endpoints.length]!,
      receivedAt: at,
      method: i % 3 === 0 ? "PUT" : "POST",
      path: "/webhook",
      query: `n=${i}`,
      headers: [["content-type", "application/json"]],
      body: new TextEncoder().encode(JSON.stringify({ n: i, pad: "x".repeat(i % 50) })),
      remoteAddr: "127.0.0.1",
    });
  });
}

/** A temp store holding `text` as its log; disposed with its directory. */
export async function tempStore(text: string | Uint8Array): Promise<StorePaths & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_store_" });
  const paths = storePaths(`${dir}/.hooktap`);
  await Deno.mkdir(paths.dir);
  if (typeof text === "string") await Deno.writeTextFile(paths.events, text);
  else await Deno.writeFile(paths.events, text);
  return { ...paths, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/** The log text of `events`. */
export function logText(events: readonly CapturedEvent[]): string {
  return events.map(eventLine).join("");
}

/** Opens a reader whose file counts the bytes it reads. */
export async function countingReader(paths: StorePaths): Promise<StoreReader & { bytesRead(): number }> {
  const reader = (await openStoreReader(paths))!;
  let bytes = 0;
  const file = reader.file;
  const counting = {
    seek: (offset: number, whence: Deno.SeekMode) => file.seek(offset, whence),
    read: async (buf: Uint8Array) => {
      const n = await file.read(buf);
      bytes += n ?? 0;
      return n;
    },
    seekSync: (offset: number, whence: Deno.SeekMode) => file.seekSync(offset, whence),
    readSync: (buf: Uint8Array) => {
      const n = file.readSync(buf);
      bytes += n ?? 0;
      return n;
    },
  } as unknown as Deno.FsFile;
  return Object.assign(Object.create(reader), { file: counting, bytesRead: () => bytes }, {
    parse: reader.parse,
    skip: reader.skip,
    [Symbol.dispose]: reader[Symbol.dispose],
  });
}
