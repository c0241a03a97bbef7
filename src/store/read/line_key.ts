/**
 * Reads a stored line's id and endpoint from its bytes, without parsing the
 * JSON. Every v1 line starts `{"v":1,"id":"evt_YYYYMMDD_<ULID>","endpoint":"NAME",`
 * (the writer serialises the record's fields in that order), so both can be
 * compared in place: this is what keeps lookups and scans of a big store cheap.
 * Pure.
 * @module
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes every v1 line starts with, up to the id. */
const HEAD = encoder.encode('{"v":1,"id":"');
/** Where the version digit is in HEAD (v1 and v2 lines have heads of the same length). */
const VERSION_AT = 5;
/** Length of a whole id: `evt_` + 8 digits + `_` + 26-character ULID. */
export const ID_LENGTH = 39;
/** Bytes between the id and the endpoint's JSON string. */
const ENDPOINT_KEY = encoder.encode('","endpoint":');
/** Offset of the endpoint's JSON string in a line. */
const ENDPOINT_AT = HEAD.length + ID_LENGTH + ENDPOINT_KEY.length;
/** Bytes of a line needed to read its id. */
export const ID_PROBE_BYTES = HEAD.length + ID_LENGTH + 1;

/** Whether `line` starts with a record head, `{"v":1,"id":"` or `{"v":2,"id":"`. */
function startsWithHead(line: Uint8Array): boolean {
  if (line.length < HEAD.length) return false;
  for (let i = 0; i < HEAD.length; i++) {
    if (line[i] !== HEAD[i] && !(i === VERSION_AT && line[i] === 0x32 /* 2 */)) return false;
  }
  return true;
}

function startsWithAt(line: Uint8Array, at: number, expected: Uint8Array): boolean {
  if (line.length < at + expected.length) return false;
  for (let i = 0; i < expected.length; i++) {
    // The version digit (byte 5 of HEAD): v1 and v2 lines (v2 = v1 plus optional fields) read alike.
    if (line[at + i] !== expected[i] && !(expected === HEAD && i === 5 && line[at + i] === 0x32)) {
      return false;
    }
  }
  return true;
}

/** The id of a stored line (or of its first bytes), or `undefined` when it is not a v1 or v2 record. */
export function lineId(line: Uint8Array): string | undefined {
  if (!startsWithHead(line) || line[HEAD.length + ID_LENGTH] !== 0x22 /* " */) return undefined;
  const id = decoder.decode(line.subarray(HEAD.length, HEAD.length + ID_LENGTH));
  return id.startsWith("evt_") && id[12] === "_" ? id : undefined;
}

/** A test of "this line's id has `prefix` at `offset`", on the line's bytes (no check of the rest). */
export function idBytesMatcher(prefix: string, offset: number): (line: Uint8Array) => boolean {
  const expected = encoder.encode(prefix);
  return (line) => startsWithAt(line, HEAD.length + offset, expected);
}

/** A test of "this line belongs to endpoint `name`", on the line's bytes. */
export function endpointMatcher(name: string): (line: Uint8Array) => boolean {
  const expected = encoder.encode(JSON.stringify(name) + ",");
  return (line) => startsWithAt(line, ENDPOINT_AT, expected);
}

/** The endpoint name of a stored line, read without parsing the rest of it. */
export function lineEndpoint(line: Uint8Array): string | undefined {
  if (lineId(line) === undefined || !startsWithAt(line, HEAD.length + ID_LENGTH, ENDPOINT_KEY)) {
    return undefined;
  }
  // The name is a JSON string: find its closing quote, skipping escapes.
  let i = ENDPOINT_AT + 1;
  if (line[ENDPOINT_AT] !== 0x22) return undefined;
  while (i < line.length && line[i] !== 0x22) i += line[i] === 0x5c /* \ */ ? 2 : 1;
  if (i >= line.length) return undefined;
  try {
    return JSON.parse(decoder.decode(line.subarray(ENDPOINT_AT, i + 1))) as string;
  } catch {
    return undefined;
  }
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** The Crockford base-32 digit of each ASCII code, `-1` for none. */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < CROCKFORD.length; i++) DIGIT[CROCKFORD.charCodeAt(i)] = i;

/** The time (ms since the epoch) encoded in an id's ULID, or `NaN`. */
export function idTime(id: string): number {
  if (id.length < 23) return NaN;
  let ms = 0;
  for (let i = 13; i < 23; i++) {
    const code = id.charCodeAt(i);
    const digit = code < 128 ? DIGIT[code]! : -1;
    if (digit === -1) return NaN;
    ms = ms * 32 + digit;
  }
  return ms;
}

/**
 * The time (ms since the epoch) of the ULID whose 10 time characters start at byte `at` of `bytes` (an id
 * read in place, `<prefix>_YYYYMMDD_` before it), or `NaN`.
 */
export function ulidTimeAt(bytes: Uint8Array, at: number): number {
  let ms = 0;
  for (let i = at; i < at + 10; i++) {
    const digit = bytes[i]! < 128 ? DIGIT[bytes[i]!]! : -1;
    if (digit === -1) return NaN;
    ms = ms * 32 + digit;
  }
  return ms;
}
