/**
 * Decoding the server's answers with its HTTP contract, without effect in the bundle: the
 * contract's schemas for the answers decoded here are compiled on the server side to plain
 * shapes (`@penguin/server/contract-shapes`, apps/server/src/http/web-shapes.ts; each module
 * imports the shapes it decodes with by name, so a chunk carries only its own) and
 * checked by the protocol package's small interpreter, with effect's own rules. An answer that
 * decodes is the contract's type as is; one that does not says which field is wrong.
 *
 * The resource modules decode with it first and read an answer field by field (api/read.ts)
 * only when it does not decode, which is a server of another version: that is reported on the
 * console once per answer kind, so a drift shows, and the page still gets what can be read.
 */
import { shapeIssue, type Shape } from "@penguin/omnimessage";
import type * as C from "@penguin/server/contract";

/** The answers the web decodes with the contract, by schema name. */
export interface ContractAnswers {
  SessionView: C.SessionView;
  SessionList: C.SessionList;
  SessionDetail: C.SessionDetail;
  UsageReport: C.UsageReport;
  ProjectList: C.ProjectList;
  AgentList: C.AgentList;
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

/** `value` decoded with `shape`, the compiled schema of the answer `name`. */
export function decodeAnswer<K extends keyof ContractAnswers>(name: K, shape: Shape, value: unknown): Decoded<ContractAnswers[K]> {
  const issue = shapeIssue(shape, value);
  if (issue === undefined) return { ok: true, value: value as ContractAnswers[K] };
  const path = issue.path.map((key) => `[${JSON.stringify(key)}]`).join("");
  return { ok: false, error: `${name}${path}: ${issue.message}` };
}

const reported = new Set<string>();

/** Says once per answer kind that an answer did not decode (the caller then reads it field by field). */
export function reportUndecoded(name: keyof ContractAnswers, error: string): void {
  if (reported.has(name)) return;
  reported.add(name);
  console.warn(`the server's answer does not match the web app's contract (${error}); reading it field by field`);
}
