/**
 * The pairing check run on every recorded request (the invariant Codex's ResponseMock keeps):
 * every tool result answers an earlier call, and every call gets exactly one result.
 *
 * Two matching rules, chosen per message by whether it carries an id:
 * - With ids (chat, responses, anthropic; gemini when the client sets `id`): a result must
 *   come after the call with its id, and each id is answered exactly once, anywhere later.
 * - Without ids (gemini): the results in the user turn right after a model turn must answer
 *   that turn's calls — same count, and each result takes the first unanswered call of its
 *   name, so a client may send results in completion order.
 *
 * Returns one human-readable problem per finding; an empty list means the request is sound.
 */
import type { NormalizedMessage } from "./script.js";

export function checkPairing(messages: NormalizedMessage[]): string[] {
  return [...checkIdPairs(messages), ...checkPositionalPairs(messages)];
}

function checkIdPairs(messages: NormalizedMessage[]): string[] {
  const problems: string[] = [];
  const calls = new Map<string, { name: string; at: number; results: number }>();
  messages.forEach((message, at) => {
    const id = message.toolCallId;
    if (id === undefined) return;
    if (message.kind === "tool_call") {
      if (calls.has(id)) problems.push(`tool call id "${id}" is used twice (message #${at})`);
      else calls.set(id, { name: message.name ?? "", at, results: 0 });
    } else if (message.kind === "tool_result") {
      const call = calls.get(id);
      if (call === undefined) problems.push(`tool result for "${id}" (message #${at}) follows no call with that id`);
      else if (++call.results === 2) problems.push(`tool call "${id}" (${call.name}) has more than one result`);
    }
  });
  for (const [id, call] of calls) {
    if (call.results === 0) problems.push(`tool call "${id}" (${call.name}, message #${call.at}) has no result`);
  }
  return problems;
}

interface Run {
  assistant: boolean;
  start: number;
  messages: NormalizedMessage[];
}

/** Split the conversation into alternating model turns and user-side turns. */
function runs(messages: NormalizedMessage[]): Run[] {
  const out: Run[] = [];
  messages.forEach((message, at) => {
    const assistant = message.role === "assistant";
    const last = out.at(-1);
    if (last !== undefined && last.assistant === assistant) last.messages.push(message);
    else out.push({ assistant, start: at, messages: [message] });
  });
  return out;
}

function checkPositionalPairs(messages: NormalizedMessage[]): string[] {
  const problems: string[] = [];
  let pendingCalls: NormalizedMessage[] = [];
  let modelTurnAt = -1;
  for (const run of runs(messages)) {
    if (run.assistant) {
      problems.push(...unanswered(pendingCalls, modelTurnAt));
      pendingCalls = run.messages.filter((m) => m.kind === "tool_call" && m.toolCallId === undefined);
      modelTurnAt = run.start;
      continue;
    }
    const results = run.messages.filter((m) => m.kind === "tool_result" && m.toolCallId === undefined);
    if (results.length === 0 && pendingCalls.length === 0) continue;
    if (results.length !== pendingCalls.length) {
      problems.push(
        `the model turn at message #${modelTurnAt} makes ${pendingCalls.length} call(s) without ids ` +
          `[${names(pendingCalls)}] but the next user turn (message #${run.start}) answers ${results.length} [${names(results)}]`,
      );
    }
    pendingCalls = matchByName(pendingCalls, results, run.start, problems);
  }
  problems.push(...unanswered(pendingCalls, modelTurnAt));
  return problems;
}

/** Give each result the first open call of its name; returns the calls left open. */
function matchByName(calls: NormalizedMessage[], results: NormalizedMessage[], turnAt: number, problems: string[]): NormalizedMessage[] {
  const open = [...calls];
  for (const result of results) {
    const index = open.findIndex((call) => result.name === undefined || call.name === result.name);
    if (index === -1) {
      problems.push(`tool result "${result.name ?? ""}" in the user turn at message #${turnAt} answers no call of the model turn before it`);
    } else {
      open.splice(index, 1);
    }
  }
  return open;
}

function unanswered(calls: NormalizedMessage[], modelTurnAt: number): string[] {
  return calls.map((call) => `tool call "${call.name ?? ""}" of the model turn at message #${modelTurnAt} has no result in the next user turn`);
}

function names(messages: NormalizedMessage[]): string {
  return messages.map((m) => m.name ?? "?").join(", ");
}
