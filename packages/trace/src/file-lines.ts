/**
 * What a resume snapshot of the file a session writes needs, kept while the session runs, so
 * the snapshot can be written when a task ends and when the session ends: the message objects
 * of that file with their line numbers (a snapshot stores each message of the state as the
 * line it came from, found by object identity).
 *
 * Without it, a long session that ran live and ended normally left no snapshot, and its first
 * resume folded the whole file (a 100k-line trace: the slow path, every time it is resumed
 * once). The objects are the ones the session's fold holds already, so keeping them costs two
 * references per line.
 *
 * A session that never ends normally (the process is killed, the machine stops) is what
 * resume is most often for, so the snapshot is also refreshed when a task ends, once the file
 * has grown `RESUME_SNAPSHOT_REFRESH_LINES` past the last one: a crash then leaves a snapshot
 * at most one task behind, and resume folds only what came after it. A resume that folded
 * that far past the last snapshot leaves the new one to the session's first commit point
 * (`afterCommit`), so its first request does not wait for it. Writes are synchronous
 * and whole lines (writer.ts), and the fold follows them synchronously, so between two
 * appends the state is exactly the fold of the lines written: a snapshot taken there needs no
 * closed writer. It covers bytes that may not be synced yet; should a crash lose them, the
 * snapshot's key no longer matches the file and it is ignored.
 *
 * The record is complete only when it saw every line of the file: a new file this writer
 * started, or a resumed one read whole by `readForResume` (its content holds every line the
 * state can refer to). Otherwise (a file resumed another way) nothing is written; a rotation
 * starts the record again for the new file, which this writer writes from its first line.
 */
import { fstatSync } from "node:fs";
import { readOpenFile, readRange } from "./file-range.js";
import type { OmniMessage } from "@penguin/omnimessage";
import { RESUME_SNAPSHOT_MIN_LINES, RESUME_SNAPSHOT_REFRESH_LINES, writeResumeSnapshot, type ResumeFoldOptions } from "./resume-snapshot.js";
import type { SessionState } from "./state.js";
import type { TraceWriter } from "./writer.js";

/** What was read of the file a resumed session goes on with: its index, its messages and their line numbers. */
export interface ReadFileLines {
  index: number;
  messages: readonly OmniMessage[];
  lines: readonly number[];
  /** Lines the file's snapshot covered after the read (0: none); a newer one is written only past it. */
  snapshotLines?: number;
  /** The whole lines the read found in the file (its extent): the last line before this writer's first. */
  lastLine?: number;
}

/** When a file's resume snapshot is written: a file of at least `minLines`, `refreshLines` past the last one (resume's own rule). */
export type SnapshotThresholds = ResumeFoldOptions;

export class FileLines {
  readonly #writer: TraceWriter;
  /** The file index the record is about; undefined while it is not complete. */
  #index: number | undefined;
  #messages: OmniMessage[] = [];
  #lines: number[] = [];
  /** The file's last line this record knows: the last one this writer wrote, or the last one resume read (0: none yet). */
  #lastWritten = 0;
  /** Lines the file's newest snapshot covers, as far as this record knows (0: none). */
  #snapshotLines = 0;
  readonly #stop: () => void;
  readonly #thresholds: Required<SnapshotThresholds>;
  /** Started from a resume read that left the snapshot it called for to the session's first commit point (see `afterCommit`). */
  #resumeSnapshotDue = false;

  /**
   * Follow `writer`. `start`: "new-file" when the writer starts its file (a new session);
   * what resume read of the writer's file; undefined when that is not known (the record is
   * then complete only from the writer's next file on). `thresholds`: when snapshots are
   * written (defaults `RESUME_SNAPSHOT_MIN_LINES`, `RESUME_SNAPSHOT_REFRESH_LINES`).
   */
  constructor(writer: TraceWriter, start: ReadFileLines | "new-file" | undefined, thresholds: SnapshotThresholds = {}) {
    this.#writer = writer;
    this.#thresholds = { minLines: thresholds.minLines ?? RESUME_SNAPSHOT_MIN_LINES, refreshLines: thresholds.refreshLines ?? RESUME_SNAPSHOT_REFRESH_LINES };
    if (start === "new-file") this.#index = writer.index;
    else if (start !== undefined && start.index === writer.index && start.messages.length === start.lines.length) {
      this.#index = start.index;
      this.#messages = [...start.messages];
      this.#lines = [...start.lines];
      this.#snapshotLines = start.snapshotLines ?? 0;
      this.#lastWritten = start.lastLine ?? 0;
      this.#resumeSnapshotDue = true;
    }
    this.#stop = writer.onWrite((m, position) => {
      if (position.file !== this.#index) {
        // Another file: complete only if this writer starts it (a rotation), else unknown.
        this.#index = position.line === 1 ? position.file : undefined;
        this.#messages = [];
        this.#lines = [];
        this.#snapshotLines = 0;
      }
      if (this.#index === undefined) return;
      this.#messages.push(m);
      this.#lines.push(position.line);
      this.#lastWritten = position.line;
    });
  }

  /**
   * Write the file's resume snapshot with `state` (the session's fold after its last record)
   * once the writer is closed: only when the record is complete, this writer wrote the file's
   * last line, the file ends there (its size and last byte say so), it is long enough to be
   * worth one and it has lines the newest snapshot does not cover. True when one was written.
   */
  writeSnapshot(state: SessionState, minLines = this.#thresholds.minLines): boolean {
    this.#stop();
    return this.#write(state, minLines, 1);
  }

  /**
   * While the session goes on (a task has ended): write the snapshot when the file has grown
   * `refreshLines` past the newest one, with the same checks as `writeSnapshot`. `state` must
   * be the fold of every line written so far, as the session's live fold is between appends.
   */
  checkpoint(state: SessionState, thresholds: SnapshotThresholds = {}): boolean {
    return this.#write(state, thresholds.minLines ?? this.#thresholds.minLines, thresholds.refreshLines ?? this.#thresholds.refreshLines);
  }

  /**
   * A commit point of the session is durable. The first one after a resume is where the
   * snapshot the resume read called for is written (readForResume with `writeSnapshot: false`):
   * not before the first request, which would wait for it, and not only at the task's end,
   * which a long first task may never reach before a crash. The same checks and thresholds as
   * `checkpoint`; later calls do nothing.
   */
  afterCommit(state: SessionState): boolean {
    if (!this.#resumeSnapshotDue) return false;
    this.#resumeSnapshotDue = false;
    return this.checkpoint(state);
  }

  #write(state: SessionState, minLines: number, newLines: number): boolean {
    const index = this.#index;
    if (index === undefined || index !== this.#writer.index || this.#lastWritten < minLines || this.#lastWritten - this.#snapshotLines < newLines) return false;
    const file = this.#writer.file;
    const bytes = sizeEndingInNewline(file);
    if (bytes === undefined) return false;
    const written = writeResumeSnapshot(file, { messages: this.#messages, lines: this.#lines, skipped: [], tornTail: false }, { bytes, lines: this.#lastWritten }, state);
    if (written) this.#snapshotLines = this.#lastWritten;
    return written;
  }
}

/** The file's size when its last byte is a newline (every line written whole), else undefined. */
function sizeEndingInNewline(file: string): number | undefined {
  return readOpenFile(file, (fd) => {
    const size = fstatSync(fd).size;
    return size > 0 && readRange(fd, size - 1, 1)[0] === 0x0a ? size : undefined;
  });
}
