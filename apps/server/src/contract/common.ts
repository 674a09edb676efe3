/**
 * Pieces of the HTTP contract that several resources answer with: file reads, path lists,
 * the settings literals. The contract modules import only `effect` and the protocol
 * (`@penguin/omnimessage`), never server code, so the web app can import their types (and a
 * test can decode with them) without pulling express or node modules along.
 */
import { Schema } from "effect";

export const APPROVAL_MODE_VALUES = ["allow-all", "deny-all", "read-only", "always-ask"] as const;
export const ApprovalMode = Schema.Literal(...APPROVAL_MODE_VALUES);
export const THINKING_LEVEL_VALUES = ["none", "low", "medium", "high", "xhigh", "max"] as const;
export const ThinkingLevel = Schema.Literal(...THINKING_LEVEL_VALUES);
export const CLIENT_TYPE_VALUES = ["openai-chat", "openai-responses", "anthropic-messages", "gemini"] as const;
export const ClientType = Schema.Literal(...CLIENT_TYPE_VALUES);

/** `{ok: true}`. */
export const Ok = Schema.Struct({ ok: Schema.Literal(true) });

/** A file read through the API: text when it is UTF-8, else base64, cut at the route's cap. */
export const FileContent = Schema.Struct({
  path: Schema.String,
  size: Schema.Number,
  encoding: Schema.Literal("utf8", "base64"),
  content: Schema.String,
  truncated: Schema.Boolean,
});

/** Files below a folder, by their path in it. */
export const FileList = Schema.Struct({ files: Schema.Array(Schema.Struct({ path: Schema.String, size: Schema.Number })) });

/** `{systemConfig}`: the agent's system_config.yaml after a change. */
export const SystemConfigText = Schema.Struct({ systemConfig: Schema.String });

/** A trace file of a session: its index (001, 002, … as a number) and size in bytes. */
export const TraceFileInfo = Schema.Struct({ index: Schema.Number, size: Schema.Number });

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type ApprovalMode = typeof ApprovalMode.Type;
export type ThinkingLevel = typeof ThinkingLevel.Type;
export type ClientType = typeof ClientType.Type;
export type Ok = typeof Ok.Type;
export type FileContent = typeof FileContent.Type;
export type FileList = typeof FileList.Type;
export type SystemConfigText = typeof SystemConfigText.Type;
export type TraceFileInfo = typeof TraceFileInfo.Type;
