// The trace download (services/trace-view.ts): given a session whose trace was rotated into
// three files, two of them longer than the download's read chunk, when it is downloaded, then
// the body is every file's bytes in index order, byte for byte (multi-byte characters across
// chunk edges included); given a file that vanishes before its turn, then the stream fails
// instead of ending short as if complete. Real files in a temp dir.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentPaths, newSessionId, sessionDate, traceFilePath } from "@penguin/core";
import { sessionMeta, userText } from "@penguin/omnimessage";
import { traceDownload } from "../src/services/trace-view.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "penguin-trace-download-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeFiles(): { paths: ReturnType<typeof agentPaths>; sessionId: string; files: string[] } {
  const paths = agentPaths(root, "default_project", "default_agent");
  const sessionId = newSessionId(new Date(Date.UTC(2026, 11, 1, 9, 0, 0)));
  const meta = JSON.stringify(sessionMeta({ session_id: sessionId, provider: "p", model_id: "m", model_context_window: 1000, system_prompt: "", agent_state: "/a", workspace: "/w" }));
  const files = [1, 2, 3].map((index) => {
    const file = traceFilePath(paths, sessionDate(sessionId), sessionId, index);
    mkdirSync(dirname(file), { recursive: true });
    const count = index === 2 ? 3 : 4000;
    const lines = Array.from({ length: count }, (_, i) => JSON.stringify(userText(`file ${index} line ${i} ünïcödé ✓ 终 😀 ${"x".repeat(i % 97)}`)));
    writeFileSync(file, `${[meta, ...lines].join("\n")}\n`);
    return file;
  });
  return { paths, sessionId, files };
}

describe("trace download", () => {
  it("given three rotated files, two longer than a read chunk, then the body is their bytes in order", async () => {
    const { paths, sessionId, files } = writeFiles();
    const expected = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(expected.length).toBeGreaterThan(2 * 256 * 1024);
    const response = traceDownload(paths, sessionId);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    expect(Buffer.from(await response.arrayBuffer()).equals(expected)).toBe(true);
  });

  it("given a file that vanishes before its turn, then the download fails rather than ending short", async () => {
    const { paths, sessionId, files } = writeFiles();
    const response = traceDownload(paths, sessionId);
    rmSync(files[2]!);
    await expect(response.arrayBuffer()).rejects.toThrow(/ENOENT/);
  });
});
