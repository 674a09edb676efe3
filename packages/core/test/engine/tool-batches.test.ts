// The ToolRunner's batches: one FiberSet per run, one batch per request attempt in turn. A
// batch the engine forgot to settle or close is closed by the next one (its running call is
// aborted and it emits nothing more), and closing the run's Scope aborts what still runs.
// Real Environment, with a disk whose reads never answer until their signal fires.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { isModel, type OmniMessage, type ToolCallPayload } from "@penguin/omnimessage";
import { makeApprovals } from "../../src/engine/approvals.js";
import { makeToolRunner } from "../../src/engine/tool-batch.js";
import { sandbox, stalledDisk, type Sandbox } from "../environment/helpers.js";

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const readCall = (id: string): ToolCallPayload => ({
  type: "tool_call",
  role: "assistant",
  name: "read_file",
  arguments: JSON.stringify({ file_path: "notes.txt" }),
  tool_call_id: id,
});

const outputOf = (messages: readonly OmniMessage[], id: string) =>
  messages.flatMap((m) => (isModel(m, "tool_call_output") && m.payload.tool_call_id === id ? [m.payload] : []));

function stalledRunner(): { runner: ReturnType<typeof makeToolRunner>; entered: Promise<void> } {
  const disk = stalledDisk("readBytes");
  box = sandbox({ fileOperations: disk.operations });
  writeFileSync(join(box.workspace, "notes.txt"), "notes\n");
  return { runner: makeToolRunner(box.env, makeApprovals(undefined)), entered: disk.entered };
}

describe("tool batches", () => {
  it("the next batch closes a previous one left running: its call is aborted and it emits nothing more", async () => {
    const { runner, entered } = stalledRunner();
    const emitted: OmniMessage[] = [];
    const result = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const batches = yield* runner.batches(async () => "allow", (m) => void emitted.push(m));
          const first = yield* batches.next;
          yield* first.add(readCall("c1"));
          yield* Effect.promise(() => entered);
          const second = yield* batches.next;
          const emittedAfterClose = emitted.length;
          const settled = yield* second.settle;
          return { settled, emittedAfterClose, firstOutputs: first.outputs.size, secondSize: second.size };
        }),
      ),
    );
    expect(result.settled).toBe(true);
    expect(emitted.length).toBe(result.emittedAfterClose);
    expect(result.firstOutputs).toBe(0);
    expect(result.secondSize).toBe(0);
    expect(outputOf(emitted, "c1")).toEqual([]);
  });

  it("closing the run's Scope aborts a call still running, which reports its end", async () => {
    const { runner, entered } = stalledRunner();
    const emitted: OmniMessage[] = [];
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const batches = yield* runner.batches(async () => "allow", (m) => void emitted.push(m));
          const batch = yield* batches.next;
          yield* batch.add(readCall("c1"));
          yield* Effect.promise(() => entered);
        }),
      ),
    );
    expect(outputOf(emitted, "c1").map((o) => o.stop_reason)).toEqual(["aborted"]);
  });

  it("batches of one run follow each other over the same fibers: each settles with its own outputs", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "notes.txt"), "notes\n");
    const runner = makeToolRunner(box.env, makeApprovals(undefined));
    const emitted: OmniMessage[] = [];
    const outputs = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const batches = yield* runner.batches(async () => "allow", (m) => void emitted.push(m));
          const seen: string[][] = [];
          for (const id of ["a1", "a2", "a3"]) {
            const batch = yield* batches.next;
            yield* batch.add(readCall(id));
            expect(yield* batch.settle).toBe(true);
            seen.push([...batch.outputs.keys()]);
          }
          return seen;
        }),
      ),
    );
    expect(outputs).toEqual([["a1"], ["a2"], ["a3"]]);
    expect(outputOf(emitted, "a2").map((o) => o.stop_reason)).toEqual(["completed"]);
  });
});
