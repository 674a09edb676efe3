/**
 * A synchronous PostgreSQL connection: one `pg` client in a worker thread, driven by the main
 * thread, which blocks (Atomics.wait) until the worker has the answer.
 *
 * Why: the facts stores are synchronous by design (db/facts-db.ts says why: their callers run
 * inline between steps whose order matters). better-sqlite3 gives that for SQLite; `pg` is
 * asynchronous, so it runs on its own thread and each statement is one round trip the main
 * thread waits for. One connection, one statement at a time: the main thread cannot send a
 * second before the first is answered, so transactions (BEGIN … COMMIT on this connection)
 * need no further locking in this process.
 *
 * The worker's code is a string (`eval: true`): it must run from the TypeScript sources in
 * tests and from dist in production alike, and it needs nothing but `pg`, whose resolved path
 * is handed to it.
 */
import { createRequire } from "node:module";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";

/** How long one statement may take before the caller is told the database does not answer. */
const STATEMENT_WAIT_MS = 60_000;

const WORKER_CODE = `
const { workerData } = require("node:worker_threads");
const pg = require(workerData.pgPath);
const signal = new Int32Array(workerData.signal);
const port = workerData.port;
// int8 (count(*), bigint columns: millisecond times) as numbers, as SQLite gives them.
const types = { getTypeParser: (oid, format) => (oid === 20 ? (v) => Number(v) : pg.types.getTypeParser(oid, format)) };
// One connection at a time. A lost one (PostgreSQL restarted, the backend terminated) is
// replaced on the next statement, unless that statement belongs to a transaction begun on
// the lost one: that transaction is gone, and running its rest on a new connection would
// commit half of it, so those statements fail until the caller rolls back.
let client;
let ready;
let lost;
function connect() {
  lost = undefined;
  // Named after this process, so pg_stat_activity (and pg_locks with it: whose duty is it) tells the nodes apart.
  const next = new pg.Client({ connectionString: workerData.url, types, application_name: "penguin-server " + process.pid });
  next.on("error", (e) => { if (client === next) lost = e; });
  next.on("end", () => { if (client === next && lost === undefined) lost = new Error("the connection to PostgreSQL ended"); });
  client = next;
  ready = next.connect();
  ready.catch((e) => { if (client === next) lost = e; });
}
connect();
function answer(message) {
  port.postMessage(message);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}
port.on("message", async (request) => {
  if (request.close) {
    try { await client.end(); } catch {}
    answer({ ok: true, rows: [], rowCount: 0 });
    port.close();
    return;
  }
  try {
    if (lost !== undefined) {
      if (request.inTransaction) throw new Error("the connection to PostgreSQL was lost inside a transaction (" + lost.message + "); it was rolled back");
      connect();
    }
    await ready;
    const result = await client.query({ text: request.sql, values: request.params });
    answer({ ok: true, rows: result.rows ?? [], rowCount: result.rowCount ?? 0 });
  } catch (e) {
    answer({ ok: false, message: String(e && e.message || e), code: e && e.code, detail: e && e.detail });
  }
});
`;

export interface SyncResult {
  rows: Record<string, unknown>[];
  rowCount: number;
}

/** A statement PostgreSQL refused, or a connection that failed; `code` is PostgreSQL's SQLSTATE. */
export class PostgresError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.name = "PostgresError";
    this.code = code;
  }
}

export class SyncPostgres {
  readonly #worker: Worker;
  readonly #port;
  readonly #signal = new Int32Array(new SharedArrayBuffer(4));
  #closed = false;

  constructor(url: string) {
    const pgPath = createRequire(import.meta.url).resolve("pg");
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(WORKER_CODE, { eval: true, workerData: { url, pgPath, signal: this.#signal.buffer, port: port2 }, transferList: [port2] });
    // The worker never keeps the process alive on its own: the server closes it when it stops.
    this.#worker.unref();
    port1.unref();
  }

  /**
   * Runs one statement and waits for its answer. `inTransaction`: the statement continues a
   * transaction, so it must not run on a fresh connection if the old one was lost.
   */
  query(text: string, params: readonly unknown[] = [], inTransaction = false): SyncResult {
    if (this.#closed) throw new PostgresError("the PostgreSQL connection is closed", undefined);
    const answer = this.#ask({ sql: text, params, inTransaction });
    if (!answer.ok) throw new PostgresError(`${answer.message}${answer.detail ? ` (${answer.detail})` : ""} [in: ${text.slice(0, 200)}]`, answer.code);
    return { rows: answer.rows, rowCount: answer.rowCount };
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.#ask({ close: true });
    } catch {
      // The worker is terminated below either way.
    }
    this.#closed = true;
    void this.#worker.terminate();
  }

  #ask(request: object): { ok: boolean; rows: Record<string, unknown>[]; rowCount: number; message?: string; code?: string; detail?: string } {
    const before = Atomics.load(this.#signal, 0);
    this.#port.postMessage(request);
    for (;;) {
      const waited = Atomics.wait(this.#signal, 0, before, STATEMENT_WAIT_MS);
      const received = receiveMessageOnPort(this.#port);
      if (received !== undefined) return received.message;
      if (waited === "timed-out") throw new PostgresError(`PostgreSQL did not answer within ${STATEMENT_WAIT_MS / 1000} s; check that the server in --database is up`, undefined);
    }
  }
}
