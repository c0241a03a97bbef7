/**
 * A yes/no question on the terminal, for commands that destroy data.
 * @module
 */

/** Whether a question can be asked: stdin and stderr are terminals. */
export function canAsk(): boolean {
  return Deno.stdin.isTerminal() && Deno.stderr.isTerminal();
}

/** Asks `question` on stderr and reads the answer from stdin; only "y" or "yes" is a yes. */
export async function askYesNo(question: string): Promise<boolean> {
  const enc = new TextEncoder();
  await Deno.stderr.write(enc.encode(`${question} [y/N] `));
  const buf = new Uint8Array(256);
  const n = await Deno.stdin.read(buf);
  const answer = n === null ? "" : new TextDecoder().decode(buf.subarray(0, n)).trim().toLowerCase();
  return answer === "y" || answer === "yes";
}
