/**
 * A header value as its sender meant it. HTTP hands header bytes over one
 * byte per character (Latin-1), so UTF-8 `café` is stored as `cafÃ©`. One
 * rule for every view of a stored header: `inspect`, the inspector's page,
 * and `export --format curl` (which must send the stored bytes back). Pure.
 * @module
 */

/** The bytes of a stored header value (one byte per character), or `undefined` when a character is beyond Latin-1. */
export function headerBytes(value: string): Uint8Array | undefined {
  const bytes = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0xff) return undefined;
    bytes[i] = code;
  }
  return bytes;
}

/**
 * A header value as the sender meant it: when its bytes (one per character) are valid UTF-8 they are shown
 * decoded, else as they came.
 */
export function headerText(value: string): string {
  if (!/[\x80-\xff]/.test(value)) return value;
  const bytes = headerBytes(value);
  if (bytes === undefined) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return value;
  }
}
