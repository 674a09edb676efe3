/**
 * The Environment of a replay. With `--tools recorded`: the real Environment for everything the
 * engine asks of it (the tool list, permissions, discovery, disposal) except running a tool,
 * which answers with the output the recording has for that call id, with no side effects.
 * A `run_subagent` call also re-emits the recorded `subagent` pointer, so the parent's
 * trace is the same as when the child ran. A call the recording never finished gets the
 * same placeholder resume would give it. With `--tools rerun` the real Environment runs the
 * call and only the moment its output is recorded follows the recording (sequencer.ts); the
 * call's arguments name the replay's workspace and scratchpad where the recorded ones name
 * the recording's (absolute paths), so a rerun never touches the recorded session's files.
 */
import { modelMessage, type OmniMessage, type ToolDefinition } from "@penguin/omnimessage";
import { INTERRUPTED_BY_EXIT } from "@penguin/trace";
import type { RecordSequencer } from "./sequencer.js";
import type { RecordedEvent } from "./recording.js";
import type { EnvironmentInterface, ExecuteToolInput, ToolPermission } from "../interfaces.js";
import type { Identities } from "./compare.js";

export interface RecordedToolAnswers {
  outputs: Map<string, OmniMessage>;
  outputAt: Map<string, number>;
  spawned: Map<string, RecordedEvent[]>;
}

export class RecordedEnvironment implements EnvironmentInterface {
  readonly #real: EnvironmentInterface;
  readonly #answers: RecordedToolAnswers;

  readonly #sequencer: RecordSequencer;
  readonly #rerun: boolean;
  readonly #ids: Identities | undefined;

  /** `rerun`: run tools for real and only keep their outputs in the recorded order. */
  constructor(real: EnvironmentInterface, answers: RecordedToolAnswers, sequencer: RecordSequencer, rerun: boolean, ids?: Identities) {
    this.#real = real;
    this.#answers = answers;
    this.#sequencer = sequencer;
    this.#rerun = rerun;
    this.#ids = ids;
  }

  connect(signal?: AbortSignal): AsyncGenerator<OmniMessage, void> {
    return this.#real.connect?.(signal) ?? (async function* () {})();
  }

  listTools(): ToolDefinition[] {
    return this.#real.listTools();
  }

  toolPermission(name: string): ToolPermission {
    return this.#real.toolPermission(name);
  }

  async *executeTool(input: ExecuteToolInput): AsyncGenerator<OmniMessage, void> {
    const id = input.toolCall.tool_call_id;
    const at = this.#answers.outputAt.get(id);
    if (this.#rerun) {
      const ids = this.#ids;
      const call = ids === undefined ? input : { ...input, toolCall: { ...input.toolCall, arguments: ids.toReplay(input.toolCall.arguments) } };
      for await (const m of this.#real.executeTool(call)) {
        if (m.type === "model_msg" && m.payload.type === "tool_call_output" && at !== undefined) await this.#sequencer.waitFor(at - 1, input.signal);
        yield m;
      }
      return;
    }
    for (const pointer of this.#answers.spawned.get(id) ?? []) {
      await this.#sequencer.waitFor(pointer.n - 1, input.signal);
      yield { ...pointer.message, timestamp: new Date().toISOString() };
    }
    const output = this.#answers.outputs.get(id);
    if (output !== undefined) {
      if (at !== undefined) await this.#sequencer.waitFor(at - 1, input.signal);
      yield { ...output, timestamp: new Date().toISOString() };
      return;
    }
    // Never finished live: the user stopped the task while it ran. Wait for the replay's
    // abort (or for the replay to stall, if it has diverged) before answering like resume.
    await this.#sequencer.waitFor(Number.POSITIVE_INFINITY, input.signal);
    yield modelMessage({ type: "tool_call_output", role: "user", tool_call_id: id, output: INTERRUPTED_BY_EXIT, stop_reason: "aborted" });
  }

  drainNotices(): string[] {
    return this.#real.drainNotices?.() ?? [];
  }

  dispose(): Promise<void> {
    return this.#real.dispose?.() ?? Promise.resolve();
  }
}
