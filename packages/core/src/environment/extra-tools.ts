/**
 * The hook for tools the Environment does not implement itself: MCP servers today
 * (`environment/mcp/`'s McpHub has this shape), anything tool-like tomorrow.
 *
 * The Environment routes a provider through the same close-out as its builtins: framing,
 * timeout, truncation and archive, the stop-reason priority. A provider only answers calls.
 *
 * Contract for implementers:
 *   - `connect` runs lazy discovery once, yielding `mcp_connect_begin` / `mcp_connect_end`;
 *     it should not throw (if it does, the Environment closes an open begin with a failed end);
 *   - `tools()` is the discovered set, names already prefixed (`mcp__<server>__<tool>`),
 *     stable after `connect`;
 *   - `call` receives the model's arguments JSON as-is (checked to be a JSON object first)
 *     and resolves `isError: true` for tool-level errors; a rejection is a `failed` output too;
 *   - `close` releases everything (stdio server processes included).
 */
import type { OmniMessage, ToolDefinition } from "@penguin/omnimessage";
import type { ToolPermission } from "../interfaces.js";
import type { ToolContext, ToolResult } from "./tool.js";

export interface ExtraTool {
  definition: ToolDefinition;
  permission: ToolPermission;
}

export interface ExtraToolCallResult {
  output: string;
  /** `data:` URLs. */
  images?: string[];
  isError: boolean;
}

export interface ExtraToolProvider {
  connect(signal: AbortSignal): AsyncGenerator<OmniMessage, void>;
  tools(): ExtraTool[];
  call(name: string, argumentsJson: string, signal: AbortSignal): Promise<ExtraToolCallResult>;
  close(): Promise<void> | void;
}

/** A provider call as a tool run the close-out can drive. */
export function extraToolRun(
  provider: ExtraToolProvider,
  name: string,
  argumentsJson: string,
): (ctx: ToolContext) => AsyncGenerator<string, ToolResult<unknown>> {
  return async function* runExtraTool(ctx) {
    const result = await provider.call(name, argumentsJson, ctx.signal);
    if (result.output !== "") yield result.output;
    const images = result.images !== undefined && result.images.length > 0 ? result.images : undefined;
    if (result.isError) return images === undefined ? { stopReason: "failed" } : { stopReason: "failed", images };
    return images === undefined ? {} : { images };
  };
}
