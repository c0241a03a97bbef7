/**
 * The shape of every tool's answer: `structuredContent` (checked against the
 * tool's `outputSchema` by the SDK) and the same as text for clients that
 * show text, made inert for a terminal; and every failure as a tool error
 * (`isError`) with the CLI's own message, never a crashed server.
 * @module
 */
import { ConfigError, describeError, HooktapError } from "../errors.ts";
import { escapeForTerminal, safeBlock } from "../text/sanitize.ts";
import { type InputWords, reword } from "./wording.ts";

/** What a tool handler returns (the SDK's `CallToolResult`, narrowed to what hooktap sends). */
export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A tool's answer: `summary` (one or a few lines for a person) above the
 * structured result as JSON. Payload bytes never reach a terminal as control
 * sequences: JSON escapes C0 controls, and C1, bidi and invisible format
 * characters are written as `\u` escapes (src/text/sanitize.ts); the summary
 * has every control character escaped.
 */
export function answer(structured: Record<string, unknown>, summary: string): ToolAnswer {
  // JSON leaves DEL raw; escapeForTerminal takes the C1, bidi and invisible characters.
  const json = escapeForTerminal(JSON.stringify(structured, null, 2)).replaceAll("\x7f", "\\u007f");
  return {
    content: [{ type: "text", text: `${safeBlock(summary)}\n\n${json}` }],
    structuredContent: structured,
  };
}

/** The message the CLI would print for `error` (a config error with its problems listed). */
export function errorMessage(error: unknown): string {
  if (error instanceof ConfigError && error.issues.length > 0) {
    return `${error.message}\n${error.issues.map((i) => `  - ${i}`).join("\n")}`;
  }
  if (error instanceof HooktapError) return error.message;
  if (error instanceof Deno.errors.NotCapable) {
    return `${
      error.message.replace(/\.?$/, ".")
    } hooktap mcp runs under Deno's permissions: grant this one ` +
      "(a flag of `deno run`), or, when an installed `hooktap` refuses something its own command needs, report it.";
  }
  return `hooktap failed unexpectedly: ${describeError(error)}`;
}

/**
 * A tool error: the CLI's message in the tool's words (its inputs for the CLI's options, its sibling tools for
 * the commands the CLI suggests: ./wording.ts), made safe for a terminal.
 */
export function toolError(error: unknown, words: InputWords = new Map()): ToolAnswer {
  return { content: [{ type: "text", text: safeBlock(reword(errorMessage(error), words)) }], isError: true };
}

/** Tells the client a long call is still going (a progress notification), when it asked for them. */
export type Progress = (message: string) => Promise<void>;

/** What the SDK hands a handler besides the arguments (the part hooktap uses). */
export interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number } | undefined;
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }): Promise<void>;
}

/**
 * `handler` with every throw turned into a tool error (in the words of a tool whose inputs are `words`), and
 * progress sent when the client gave a token.
 */
export function guarded<A>(
  handler: (args: A, signal: AbortSignal, progress: Progress) => Promise<ToolAnswer>,
  words: InputWords = new Map(),
): (args: A, extra: CallExtra) => Promise<ToolAnswer> {
  return async (args, extra) => {
    const token = extra._meta?.progressToken;
    let step = 0;
    const progress: Progress = async (message) => {
      if (token === undefined) return;
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: ++step, message },
      }).catch(() => {});
    };
    try {
      return await handler(args, extra.signal, progress);
    } catch (error) {
      return toolError(error, words);
    }
  };
}
