// Row 18: workspace checkpoints (issue 29), on a generated workspace of 10,000 files (~200 MB
// of text-like content, 100 folders) with the real store on disk:
// - the first checkpoint of that workspace (a fresh store and process: every file read,
//   hashed, looked through for a vault value and its encoded forms as a session does, and
//   stored as it is into one pack, fsynced; the file watch started on the way);
// - the checkpoint cost per tool call when 1–10 files changed (each sample changes a random
//   1–10 files, then times `takeChanged`: the paths the file watch saw, hashed, one pack, one
//   fsync): median and p99, beside the full stat scan of every path (`take`, the way before
//   the watch and its fallback) on the same changes in the same run, and one lstat of every
//   path (the floor of any stat-based scan);
// - the bytes a checkpoint adds when one 100 KB file changed, beside that file's own gzip size;
// - restoring a checkpoint after 1,000 files changed (what `penguin rewind` does to the files).
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { seededRandom } from "@penguin/testkit";
import { WorkspaceCheckpoints } from "@penguin/trace";
import { vaultSecretForms } from "@penguin/core";
import { metric, msSince, type RowResult } from "../lib/stats.js";

const WORDS = "penguin trace checkpoint workspace restore harness engine model tool session record fold blob tree pack stat scan".split(" ");

/** Text-like bytes (words and numbers), so compression behaves as it does on source files. */
function textOf(random: () => number, bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const word = random() < 0.2 ? Math.floor(random() * 1e9).toString(36) : WORDS[Math.floor(random() * WORDS.length)]!;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(random() < 0.1 ? "\n" : " ").slice(0, bytes);
}

const p99 = (samples: number[]): number => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))]!;

export async function rowCheckpoints(samples: number, files = 10_000, fileBytes = 20_000): Promise<RowResult> {
  const root = mkdtempSync(join(tmpdir(), "penguin-bench-ckpt-"));
  const ws = join(root, "ws");
  const random = seededRandom(29);
  let checkpoints: WorkspaceCheckpoints | undefined;
  try {
    const paths: string[] = [];
    for (let i = 0; i < files; i++) {
      const folder = join(ws, `dir${String(i % 100).padStart(2, "0")}`);
      if (i < 100) mkdirSync(folder, { recursive: true });
      const path = join(folder, `file${i}.txt`);
      writeFileSync(path, textOf(random, fileBytes));
      paths.push(path);
    }
    const store = join(root, "store");
    let start = process.hrtime.bigint();
    // As a session opens them: with its vault's values (one token here) and their encoded forms.
    checkpoints = new WorkspaceCheckpoints(store, ws, { secrets: vaultSecretForms({ DEPLOY_TOKEN: "bench-token-4f1c9e2a7b" }) });
    checkpoints.watch();
    const first = (await checkpoints.takeChanged())!;
    const firstMs = msSince(start);
    // The same run's baseline: checkpoints of the same workspace by a full stat scan, own store.
    const scanning = new WorkspaceCheckpoints(join(root, "store-full-scan"), ws);
    scanning.take();

    const perCall: number[] = [];
    const fullScan: number[] = [];
    const statOnly: number[] = [];
    const how = new Set<string>();
    for (let s = 0; s < samples; s++) {
      const changed = 1 + Math.floor(random() * 10);
      for (let c = 0; c < changed; c++) writeFileSync(paths[Math.floor(random() * paths.length)]!, textOf(random, fileBytes));
      start = process.hrtime.bigint();
      how.add((await checkpoints.takeChanged())?.scan ?? "none");
      perCall.push(msSince(start));
      start = process.hrtime.bigint();
      scanning.take();
      fullScan.push(msSince(start));
      // The floor of any stat-based scan: one lstat of every path.
      start = process.hrtime.bigint();
      for (const path of paths) lstatSync(path);
      statOnly.push(msSince(start));
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

    const big = join(ws, "dir00", "hundred-kb.txt");
    writeFileSync(big, textOf(random, 100_000));
    await checkpoints.takeChanged();
    const added: number[] = [];
    let gzipped = 0;
    for (let s = 0; s < 5; s++) {
      const content = textOf(random, 100_000);
      gzipped = gzipSync(content, { level: 1 }).length;
      writeFileSync(big, content);
      added.push((await checkpoints.takeChanged())!.storedBytes);
    }

    const before = (await checkpoints.takeChanged()) ?? { tree: checkpoints.lastTree! };
    const rewinds: number[] = [];
    for (let s = 0; s < 3; s++) {
      for (let c = 0; c < 1000; c++) writeFileSync(paths[(s * 1000 + c) % paths.length]!, textOf(random, fileBytes));
      await checkpoints.takeChanged();
      start = process.hrtime.bigint();
      const report = checkpoints.restore(before.tree);
      rewinds.push(msSince(start));
      if (report.written.length !== 1000) throw new Error(`the rewind wrote ${report.written.length} files, not 1000`);
      await checkpoints.takeChanged();
    }
    return {
      row: 18,
      title: `workspace checkpoints: ${files.toLocaleString("en-US")} files, ${Math.round((files * fileBytes) / 1e6)} MB`,
      metrics: [
        metric(`first checkpoint (${first.changed.length} paths, ${(first.storedBytes / 1e6).toFixed(0)} MB stored)`, "ms", "lower", [firstMs], { goal: "≤ 1 s" }),
        metric(
          `checkpoint per tool call, 1–10 files changed (p99 ${p99(perCall).toFixed(1)} ms; scans: ${[...how].join(", ")}; the full scan's p99 ${p99(fullScan).toFixed(1)} ms; one lstat of every path ${median(statOnly).toFixed(1)} ms)`,
          "ms",
          "lower",
          perCall,
          { baseline: { name: "full stat scan", samples: fullScan }, goal: "median ≤ 30 ms, p99 ≤ 100 ms" },
        ),
        metric(`bytes a checkpoint adds, one 100 KB file changed (the file gzip'd: ${gzipped} B)`, "B", "lower", added, { goal: "≈ the file's compressed size" }),
        metric("rewind of 1,000 changed files (restore in place)", "ms", "lower", rewinds, { goal: "≤ 1 s" }),
      ],
    };
  } finally {
    checkpoints?.close();
    rmSync(root, { recursive: true, force: true });
  }
}
