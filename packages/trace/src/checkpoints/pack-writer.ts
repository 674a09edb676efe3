/**
 * Writes a big pack's bytes on a second thread while the scan goes on reading and hashing
 * files (a workspace's first checkpoint: ~200 MB stored as it is). Writing that much costs as
 * much as reading and hashing it on a busy VM (page-cache pages first touched), so doing both
 * at once takes the longer of the two, not their sum. The checkpoint code is synchronous, so
 * waiting is too: the worker counts finished batches in shared memory and `drain` waits on it
 * with Atomics.wait. Each batch says where in the file it goes (positional writes), so order
 * does not matter; a write error is kept and thrown by the next `drain`.
 *
 * The worker is inline code (no file to find in a bundle) and is ended by `close`.
 */
import { constants } from "node:os";
import type { Worker } from "node:worker_threads";
import { workerThreads } from "./lazy-builtins.js";

const WORKER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const state = new Int32Array(workerData.state);
parentPort.on("message", ({ fd, position, parts }) => {
  try {
    let at = position;
    for (const part of parts) {
      const bytes = new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
      at += bytes.length;
    }
  } catch (error) {
    Atomics.compareExchange(state, 1, 0, Math.abs(Number(error && error.errno)) || -1);
  }
  Atomics.add(state, 0, 1);
  Atomics.notify(state, 0);
});
`;

export class PackWriter {
  readonly #worker: Worker;
  /** [batches finished, the errno of the first failed write (-1: not an fs error)] */
  readonly #state = new Int32Array(new SharedArrayBuffer(8));
  #sent = 0;

  constructor() {
    this.#worker = new (workerThreads().Worker)(WORKER_CODE, { eval: true, workerData: { state: this.#state.buffer } });
    this.#worker.unref();
  }

  /**
   * Queues `parts` to be written at `position` of `fd`. A buffer that owns its whole memory is
   * handed over (no copy; the caller must not use it again); a slice of a shared one is copied.
   */
  write(fd: number, position: number, parts: Uint8Array[]): void {
    const moved: ArrayBuffer[] = [];
    const sent = parts.map((part) => {
      if (part.byteOffset === 0 && part.byteLength === part.buffer.byteLength && part.buffer instanceof ArrayBuffer && !moved.includes(part.buffer)) {
        moved.push(part.buffer);
        return part;
      }
      return new Uint8Array(part);
    });
    this.#worker.postMessage({ fd, position, parts: sent }, moved);
    this.#sent += 1;
  }

  /** Waits until every queued write is done; throws if one failed. */
  drain(): void {
    for (;;) {
      const finished = Atomics.load(this.#state, 0);
      if (finished >= this.#sent) break;
      Atomics.wait(this.#state, 0, finished);
    }
    const errno = Atomics.load(this.#state, 1);
    if (errno !== 0) {
      const code = Object.entries(constants.errno).find(([, n]) => n === errno)?.[0] ?? "an unknown error";
      throw new Error(`writing a checkpoint pack failed (${code}${code === "ENOSPC" ? ": the disk is full" : ""}); the checkpoint was not recorded`);
    }
  }

  close(): void {
    void this.#worker.terminate();
  }
}
