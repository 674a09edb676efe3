/**
 * node:zlib and node:worker_threads for the checkpoint store, loaded on first use. Every
 * session opens the store, but a small workspace's checkpoints rarely compress, open or write
 * a big pack; importing them at the top cost each `penguin run` their compile (~2 ms).
 */
import type * as Zlib from "node:zlib";
import type * as WorkerThreads from "node:worker_threads";

export function zlib(): typeof Zlib {
  return process.getBuiltinModule("node:zlib");
}

export function workerThreads(): typeof WorkerThreads {
  return process.getBuiltinModule("node:worker_threads");
}
