// Several processes opening one projections database that does not exist yet (a CLI watcher
// started beside another, a CLI beside the server): every one of them opens it, none fails
// with "database is locked" while another is switching the new file to WAL.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempRoot } from "./helpers.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx");

interface Opener {
  ready: Promise<void>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** A child that opens `file` once the go file appears; `ready` once it waits for it. */
function opener(file: string): Opener {
  const child = spawn(process.execPath, ["--conditions=development", "--import", tsx, join(here, "fixtures/open-database.ts"), file], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (stdout.startsWith("ready\n")) markReady();
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("exit", (code) => {
      markReady();
      resolve({ code, stdout, stderr });
    }),
  );
  return { ready, done };
}

describe("opening a new database from several processes at once", () => {
  it("given no file yet, when six processes open it together, then all six open it", async () => {
    for (let round = 0; round < 3; round++) {
      const file = join(tempRoot(), `projections-${round}.db`);
      const openers = Array.from({ length: 6 }, () => opener(file));
      await Promise.all(openers.map((o) => o.ready));
      writeFileSync(`${file}.go`, "");
      for (const r of await Promise.all(openers.map((o) => o.done))) {
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        expect(r.stdout).toBe("ready\nopened\n");
      }
    }
  });
});
