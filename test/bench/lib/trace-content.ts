// Realistic trace records for rows 4 and 5: what one agent turn leaves in a trace — the
// request window, thinking, a short text, a tool call, its approval, a multi-KB tool output
// and the usage — built with the protocol's own builders so the lines are exactly what the
// engine writes. Content varies per turn (no two outputs alike) so nothing compresses or
// caches unrealistically. About 9 lines and 4.7 KB per turn: 100k lines ≈ 52 MB.
import {
  approvalDecision,
  assistantText,
  requestBegin,
  requestEnd,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  type OmniMessage,
  type TokenCounts,
} from "@penguin/omnimessage";

const WORDS = "the agent reads the file and then runs the tests again because the build failed on a missing import in the parser module".split(" ");

function prose(seed: number, chars: number): string {
  let out = "";
  let x = seed * 2654435761;
  while (out.length < chars) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += `${WORDS[x % WORDS.length]} `;
    if (x % 13 === 0) out += `${x.toString(16)}\n`;
  }
  return out.slice(0, chars);
}

/** The records of turn `n` (1-based); the first turn starts with the user's prompt. */
export function turnRecords(n: number, session: TokenCounts): { records: OmniMessage[]; session: TokenCounts } {
  const id = `call_bench_${n}`;
  const request: TokenCounts = { cache_read: 4000 + n, cache_write: 300, output: 120, total: 4420 + n };
  const next: TokenCounts = {
    cache_read: session.cache_read + request.cache_read,
    cache_write: session.cache_write + request.cache_write,
    output: session.output + request.output,
    total: session.total + request.total,
  };
  const records: OmniMessage[] = [
    requestBegin(),
    ...(n === 1 ? [userText("Fix the failing build and run the tests until they pass.")] : []),
    thinking(prose(n, 300)),
    assistantText(prose(n + 7, 160)),
    toolCall({ name: "exec_command", arguments: JSON.stringify({ cmd: `npm test -- --grep case-${n}`, description: "run the tests" }), tool_call_id: id }),
    approvalDecision("allow", id),
    requestEnd("completed"),
    tokenUsage(next, request),
    toolCallOutput({ tool_call_id: id, output: prose(n + 13, 1800 + (n % 7) * 150) }),
  ];
  return { records, session: next };
}
