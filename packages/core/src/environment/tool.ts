/**
 * The shape every builtin tool has, so the Environment can treat them alike.
 *
 * A tool is plain data plus one `execute` generator:
 *   - `params` is an effect/Schema struct (built from tool-params.ts): the single source of
 *     the JSON Schema the model sees and of argument decoding (the Environment decodes before
 *     `execute` is called, so `execute` receives typed, defaulted parameters);
 *   - `execute` yields output text as it is produced and returns a `ToolResult`. It does
 *     not frame, truncate, time out or archive: the Environment's close-out does that for
 *     every tool the same way. It reports failures as values (`stopReason: "failed"` plus a
 *     `note`); a throw still ends in a `failed` output, but is a bug.
 *   - `ctx.signal` aborts on a user interrupt, a timeout or `dispose()`; a tool stops its
 *     work promptly when it fires (a command tool reaps its process group first).
 *
 * `takesDescription` marks the tools whose calls carry a `description` (SPEC §4 ★description):
 * the Environment adds that parameter to the schema, checks it, and hands it to the tool as
 * `ctx.description`, so no tool declares it and `callDescription: false` removes it everywhere.
 */
import type { Schema } from "effect";
import type { StopReason } from "@penguin/omnimessage";
import type { ToolPermission } from "../interfaces.js";

export interface ToolContext {
  toolCallId: string;
  /** Fires on interrupt, timeout or dispose. */
  signal: AbortSignal;
  /** The call's `description` argument, when the tool takes one and the model gave it. */
  description?: string;
}

export interface ToolResult<D> {
  /** The tool's own verdict; the close-out may override it (interrupt > timeout > throw > this). */
  stopReason?: StopReason;
  /** Text placed after the output, outside the truncation window (exit code, hints, errors). */
  note?: string;
  /** `data:` URLs; kept whole, outside the truncation window. */
  images?: string[];
  /** Structured facts about the run, for hosts and tests (never sent to the model). */
  details?: D;
}

export interface BuiltinTool<P, D> {
  readonly name: string;
  /** Model-facing description. */
  readonly description: string;
  readonly permission: ToolPermission;
  /**
   * Decodes the model's arguments into `P`, defaults filled. The encoded side is the struct's
   * own input shape (its keys optional where a default exists); Schema is invariant in it, so
   * it is left open here.
   */
  readonly params: Schema.Schema<P, any>;
  readonly takesDescription: boolean;
  execute(params: P, ctx: ToolContext): AsyncGenerator<string, ToolResult<D>>;
}

/** A failed result carrying only an explanation. */
export function failed<D>(note: string, details?: D): ToolResult<D> {
  return details === undefined ? { stopReason: "failed", note } : { stopReason: "failed", note, details };
}
