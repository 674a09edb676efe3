// The TraceWriter on a real full disk: a tiny tmpfs mounted for the test (root can mount one;
// where mounting is not permitted the suite is skipped and its name says why). A record that
// does not fit fails with an error naming the file and "no space left" (code ENOSPC kept),
// the records written before it stay whole (the file is cut back to where the failed record
// began, so no torn line is left), and a session whose first record does not fit leaves no
// empty trace file behind; once space is freed the same writer goes on, header first.
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { userText, type SessionMetaPayload } from "@penguin/omnimessage";
import { parseTraceText, TraceWriter, TraceWriteError } from "../src/index.js";

const SID = "session-2026-12-01-10-00-00-0123abcd";
const meta: SessionMetaPayload = { session_id: SID, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" };

/** Whether a tmpfs can be mounted here, and why not. */
function mountProbe(): string | undefined {
  const at = mkdtempSync(join(tmpdir(), "penguin-tmpfs-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", at], { stdio: "pipe" });
    execFileSync("umount", [at], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error);
  } finally {
    rmSync(at, { recursive: true, force: true });
  }
}

const cannotMount = mountProbe();
const suffix = cannotMount === undefined ? "" : ` (skipped: mounting a tmpfs is not permitted here: ${cannotMount})`;

let dir: string;
beforeEach(() => {
  if (cannotMount !== undefined) return;
  dir = mkdtempSync(join(tmpdir(), "penguin-disk-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=128k", "tmpfs", dir]);
});
afterEach(() => {
  if (cannotMount !== undefined) return;
  execFileSync("umount", ["-l", dir]);
  rmSync(dir, { recursive: true, force: true });
});

/** Fills the file system with a filler file until it is full; returns the filler's path. */
function fill(): string {
  const filler = join(dir, "filler");
  const fd = openSync(filler, "a");
  const block = Buffer.alloc(4096, 0x61);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return filler;
}

describe(`TraceWriter on a full disk${suffix}`, () => {
  it.skipIf(cannotMount !== undefined)("fails a record that does not fit naming the file, keeps every record before it whole", () => {
    const file = join(dir, `${SID}_001.jsonl`);
    const writer = new TraceWriter({ fileFor: () => file, index: 1, meta, existing: false, fsync: false });
    for (let i = 0; i < 5; i++) writer.append(userText(`before ${i}`));
    const before = readFileSync(file, "utf8");
    fill();
    let failure: unknown;
    try {
      // Large enough that part of it may land before the disk refuses the rest.
      for (let i = 0; i < 100; i++) writer.append(userText(`after ${i} ${"x".repeat(3000)}`));
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(TraceWriteError);
    const error = failure as TraceWriteError;
    expect(error.message).toContain(file);
    expect(error.message).toContain("no space left");
    expect(error.code).toBe("ENOSPC");
    expect(error.path).toBe(file);
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after.endsWith("\n")).toBe(true);
    const parsed = parseTraceText(after);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.messages.slice(0, 6).map((m) => (m.type === "session_meta" ? "meta" : (m.payload as { text: string }).text))).toEqual(["meta", "before 0", "before 1", "before 2", "before 3", "before 4"]);
    writer.close();
  });

  it.skipIf(cannotMount !== undefined)("a session whose first record does not fit leaves no trace file; with space freed it starts, header first", () => {
    const filler = fill();
    const file = join(dir, `${SID}_001.jsonl`);
    const writer = new TraceWriter({ fileFor: () => file, index: 1, meta, existing: false, fsync: false });
    expect(() => writer.start()).toThrow(/no space left on the device holding the trace file .*_001\.jsonl/);
    expect(existsSync(file)).toBe(false);
    rmSync(filler);
    writer.append(userText("now it fits"));
    writer.close();
    const parsed = parseTraceText(readFileSync(file, "utf8"));
    expect(parsed.messages.map((m) => m.type)).toEqual(["session_meta", "model_msg"]);
  });
});
