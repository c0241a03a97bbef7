/**
 * A client of `hooktap mcp` for the tests: the official MCP SDK client over
 * stdio, every tool's input and output schema checked as JSON Schema with
 * ajv, every structured answer checked against its tool's outputSchema, and
 * every text checked free of control sequences.
 * @module
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Ajv, type ValidateFunction } from "ajv";
import { cliArgs } from "./_helpers.ts";

/** The flags `hooktap mcp` needs (those of `trigger` and `replay`; changes/mcp-npm-permissions.txt). */
export const MCP_PERMISSIONS = ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"];

/** The arguments of `deno` that run `hooktap mcp` from this clone, with {@linkcode MCP_PERMISSIONS}. */
export function mcpArgs(): string[] {
  return cliArgs(MCP_PERMISSIONS, ["mcp"]);
}

/** One tool call's answer. */
export type Call = {
  isError: boolean;
  text: string;
  // The structured answer, checked against its tool's outputSchema; read freely by the assertions.
  // deno-lint-ignore no-explicit-any
  structured: Record<string, any> | undefined;
};

/** A client of `hooktap mcp` run as `command args` in `cwd`, with its schemas checked. */
export async function connectMcp(
  command: string,
  args: string[],
  cwd: string,
  options: { env?: Record<string, string> } = {},
) {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    // The proxy and CA variables (and the rest) are kept: the SDK would pass only a few by default.
    env: { ...Deno.env.toObject(), NO_COLOR: "1", ...options.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => void (stderr += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "hooktap-test", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const ajv = new Ajv({ strict: true, allErrors: true });
  const outputs = new Map<string, ValidateFunction>();
  for (const tool of tools) {
    assert.ok(ajv.validateSchema(tool.inputSchema), `${tool.name} input: ${ajv.errorsText()}`);
    ajv.compile(tool.inputSchema);
    assert.ok(tool.outputSchema !== undefined, `${tool.name} has an outputSchema`);
    assert.ok(ajv.validateSchema(tool.outputSchema), `${tool.name} output: ${ajv.errorsText()}`);
    outputs.set(tool.name, ajv.compile(tool.outputSchema));
  }
  const call = async (
    name: string,
    args: Record<string, unknown> = {},
    onprogress?: (p: { progress: number; message?: string }) => void,
  ): Promise<Call> => {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      timeout: 120_000,
      ...(onprogress ? { onprogress } : {}),
    });
    const content = result.content as { type: string; text: string }[];
    const text = content.map((c) => c.text).join("\n");
    // Payload bytes never reach the agent's terminal as control sequences (tab and newline are layout).
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(text, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069]/);
    const structured = result.structuredContent as Call["structured"];
    if (!result.isError) {
      const validate = outputs.get(name)!;
      assert.ok(
        validate(structured),
        `${name}'s answer fits its outputSchema: ${ajv.errorsText(validate.errors)}`,
      );
    }
    return { isError: result.isError === true, text, structured };
  };
  return {
    tools,
    call,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

/** A client of `hooktap mcp` run from this clone (as {@linkcode mcpArgs}) in `cwd`: see {@linkcode connectMcp}. */
export function startMcp(
  cwd: string,
  options: { env?: Record<string, string> } = {},
): ReturnType<typeof connectMcp> {
  return connectMcp(Deno.execPath(), mcpArgs(), cwd, options);
}
