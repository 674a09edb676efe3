/**
 * The scripted turns the protocol tests render. The emoji sit at UTF-16 offset 7, so an
 * 8-unit chunk boundary would cut their surrogate pair if the splitter did not guard it.
 */
import type { ScriptedTurn } from "../../src/index.js";

export const THINKING = "Think: 🐧 first, then read both files.";
export const TEXT = "Answer 🐧 is coming after the reads.";
export const ARGS_A = { path: "src/a.ts", lines: [1, 20] };
export const ARGS_B = '{"pattern":"TODO","glob":"**/*.ts"}';

export const FULL_TURN: ScriptedTurn = {
  thinking: THINKING,
  thinkingSignature: "sig-Zm9vYmFy",
  text: TEXT,
  toolCalls: [
    { name: "read", arguments: ARGS_A },
    { name: "grep", arguments: ARGS_B },
  ],
  usage: { input: 1200, cached: 200, output: 80 },
};
