/**
 * What one tool is: its name (part of the interface), description, input
 * and output shapes (zod; the SDK derives their JSON Schemas), hints, and
 * its handler. `server.ts` registers each.
 * @module
 */
import type { z } from "zod";
import type { Progress, ToolAnswer } from "./result.ts";

/** A zod object shape. */
export type Shape = Record<string, z.ZodType>;

/** One tool of `hooktap mcp`. */
export interface Tool<I extends Shape = Shape> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: Shape;
  /** Reads only (no send, no write beyond the store's own bookkeeping). */
  readonly readOnly: boolean;
  /** Reaches beyond this machine (a send to a URL). */
  readonly openWorld?: boolean;
  /** Runs the tool; a throw becomes a tool error. `progress` tells the client a long call is alive. */
  run(args: z.infer<z.ZodObject<I>>, signal: AbortSignal, progress: Progress): Promise<ToolAnswer>;
}

/** Declares a tool (keeps its input type). */
export function defineTool<I extends Shape>(tool: Tool<I>): Tool<I> {
  return tool;
}
