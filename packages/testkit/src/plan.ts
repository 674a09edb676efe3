/**
 * A scripted turn resolved against the request it answers: defaults filled in (chunk size,
 * model name, usage estimate, argument JSON), so the four protocol renderers only translate
 * and never decide anything.
 *
 * Default usage estimates about four characters a token — input from the request body, output
 * from the turn's own text — so usage grows as a scripted conversation grows.
 */
import { DEFAULT_CHUNK_SIZE } from "./chunk.js";
import type { RecordedRequest, ScriptedTurn, ScriptedUsage } from "./script.js";

export interface PlannedCall {
  name: string;
  /** The exact argument text to stream. */
  arguments: string;
  /** The scripted id; renderers generate a protocol-shaped one when absent. */
  id: string | undefined;
}

/** Token counts with every field decided. `input` includes `cached`. */
export interface PlannedUsage {
  input: number;
  cached: number;
  output: number;
}

export interface TurnPlan {
  requestIndex: number;
  model: string;
  /** Empty string means no thinking. */
  thinking: string;
  thinkingSignature: string | undefined;
  /** Empty string means no text. */
  text: string;
  calls: PlannedCall[];
  usage: PlannedUsage;
  chunkSize: number;
  /** Unix seconds, for the `created` fields. */
  created: number;
}

export const FALLBACK_MODEL = "testkit-model";

export function planTurn(turn: ScriptedTurn, request: RecordedRequest, now: number = Date.now()): TurnPlan {
  const calls = (turn.toolCalls ?? []).map((call) => ({
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    id: call.id,
  }));
  const thinking = turn.thinking ?? "";
  const text = turn.text ?? "";
  const outputChars = thinking.length + text.length + calls.reduce((sum, c) => sum + c.name.length + c.arguments.length, 0);
  return {
    requestIndex: request.index,
    model: request.model ?? FALLBACK_MODEL,
    thinking,
    thinkingSignature: turn.thinkingSignature,
    text,
    calls,
    usage: resolveUsage(turn.usage, request.rawBody.length, outputChars),
    chunkSize: turn.chunkSize ?? DEFAULT_CHUNK_SIZE,
    created: Math.floor(now / 1000),
  };
}

export function resolveUsage(usage: ScriptedUsage | undefined, requestChars: number, outputChars: number): PlannedUsage {
  return {
    input: usage?.input ?? Math.ceil(requestChars / 4),
    cached: usage?.cached ?? 0,
    output: usage?.output ?? Math.ceil(outputChars / 4),
  };
}

/** A deterministic id for the call at `position`, e.g. `toolu_tk3_0` for request 3. */
export function callId(plan: TurnPlan, position: number, prefix: string): string {
  return plan.calls[position]?.id ?? `${prefix}tk${plan.requestIndex}_${position}`;
}

/** Whether the turn ends by asking for tools. */
export function endsWithTools(plan: TurnPlan): boolean {
  return plan.calls.length > 0;
}

/**
 * Arguments as a JSON value, for protocols that carry them as an object (Anthropic's
 * non-streamed `input`, Gemini's `args`). Text that is not JSON is passed on as the raw string,
 * so a script can still hand the client bad arguments.
 */
export function argumentsValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
