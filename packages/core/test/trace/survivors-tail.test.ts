// The survivors of a closed trace file read from its end (survivorsOfClosedFile): given closed
// files whose closing compaction lies within the first window read, beyond it, or whose
// survivors run back past it, then the answer is the one the whole file gives
// (survivorsOfClosedContext over every record).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantText, compactionBegin, compactionEnd, requestBegin, requestEnd, sessionMeta, toolCallOutput, userText, type OmniMessage } from "@penguin/omnimessage";
import { readTraceFile } from "../../src/trace/reader.js";
import { survivorsOfClosedContext, survivorsOfClosedFile } from "../../src/trace/survivors.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-survivors-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const meta = sessionMeta({ session_id: "session-2026-12-01-09-00-00-0123abcd", provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" });
const big = (n: number, label: string) => `${label} `.repeat(Math.ceil(n / (label.length + 1)));

function turns(count: number): OmniMessage[] {
  const out: OmniMessage[] = [];
  for (let n = 0; n < count; n++) out.push(requestBegin(), userText(`ask ${n}`), assistantText(`answer ${n}`), toolCallOutput({ tool_call_id: `c${n}`, output: big(4000, `out${n}`) }), requestEnd("completed"));
  return out;
}

function closedFile(name: string, before: OmniMessage[], survivors: OmniMessage[], compactionReply: string): string {
  const file = join(dir, name);
  const records = [meta, ...before, ...survivors, compactionBegin({ reason: "context", mode: "summarize", context: 900, turns: 3 }), requestBegin(), assistantText(compactionReply), requestEnd("completed"), compactionEnd({ reason: "context", mode: "summarize", status: "completed" })];
  writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return file;
}

const whole = (file: string) => survivorsOfClosedContext(readTraceFile(file).messages);

describe("survivors of a closed file, read from its end", () => {
  it("given the compaction at the end of a long file, then the Human's last input is found as in the whole file", () => {
    const file = closedFile("a_001.jsonl", turns(200), [userText("keep this"), userText("and this")], "<summary>short</summary>");

    expect(survivorsOfClosedFile(file).map((m) => m.type === "model_msg" && m.payload.type === "text" && m.payload.text)).toEqual(["keep this", "and this"]);
    expect(survivorsOfClosedFile(file)).toEqual(whole(file));
  });

  it("given a compaction reply longer than the first window, then the window grows until it holds the compaction_begin", () => {
    const file = closedFile("b_001.jsonl", turns(100), [userText("kept")], `<summary>${big(600_000, "summary")}</summary>`);
    expect(whole(file)).toHaveLength(1);
    expect(survivorsOfClosedFile(file)).toEqual(whole(file));
  });

  it("given survivors that run back past the first window, then they are all found", () => {
    const survivors = Array.from({ length: 12 }, (_, i) => userText(big(40_000, `pasted${i}`)));
    const file = closedFile("c_001.jsonl", turns(100), survivors, "<summary>s</summary>");
    expect(whole(file)).toHaveLength(12);
    expect(survivorsOfClosedFile(file)).toEqual(whole(file));
  });

  it("given a file without any compaction, or with nothing that survives, then there are none", () => {
    const plain = join(dir, "d_001.jsonl");
    writeFileSync(plain, [meta, ...turns(150)].map((r) => `${JSON.stringify(r)}\n`).join(""));
    expect(survivorsOfClosedFile(plain)).toEqual([]);
    const none = closedFile("e_001.jsonl", turns(150), [], "<summary>s</summary>");
    expect(survivorsOfClosedFile(none)).toEqual(whole(none));
  });
});
