/**
 * Benchmarks, read-only (`agents/<a>/benchmarks/<id>/`): the files are the data, so this
 * resource only lists and reads them: benchmarks, their cases, a case's files and rubric
 * files, and one file's content (`?path=`, confined to the folder it names).
 */
import { join } from "node:path";
import { Schema } from "effect";
import { Matching, Text } from "../http/schemas.js";
import { json } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { resolveInside } from "../services/confined-path.js";
import { listDir, listFilesDeep, readFileContent } from "../services/files.js";
import { BenchmarkCases, BenchmarkList, FileContent, FileList } from "../contract/index.js";

const Segment = Matching(/^[A-Za-z0-9_.-]{1,120}$/, "is not a benchmark or case name").pipe(
  Schema.filter((s) => s !== "." && s !== "..", { message: () => "is not a benchmark or case name" }),
);
const BenchParams = Schema.Struct({ id: Segment });
const CaseParams = Schema.Struct({ ...BenchParams.fields, case: Segment });
const PathQuery = Schema.Struct({ path: Text(1) });
const MAX_READ = 2 * 1024 * 1024;

export function benchmarkRoutes(table: RouteTable): void {
  const base = "/api/projects/:p/agents/:a/benchmarks";
  const dirs = (dir: string) => listDir(dir).filter((e) => e.type === "dir").map((e) => e.name);

  table.add(
    { method: "get", path: base, operationId: "benchmarks.list", summary: "Benchmarks of an agent", tag: "benchmarks", access: "agent", responses: { 200: { description: "{benchmarks: [id]}", schema: BenchmarkList } } },
    ({ grant }) => json({ benchmarks: dirs(grant.agent.benchmarksDir) }),
  );

  table.add(
    { method: "get", path: `${base}/:id/cases`, operationId: "benchmarks.cases", summary: "Cases of a benchmark", tag: "benchmarks", access: "agent", params: BenchParams, responses: { 200: { description: "{cases: [name]}", schema: BenchmarkCases } } },
    ({ grant, params }) => json({ cases: dirs(resolveInside(grant.agent.benchmarksDir, join(params.id, "cases"))) }),
  );

  table.add(
    { method: "get", path: `${base}/:id/cases/:case/files`, operationId: "benchmarks.caseFiles", summary: "Files of a case", tag: "benchmarks", access: "agent", params: CaseParams, responses: { 200: { description: "{files: [{path, size}]}", schema: FileList } } },
    ({ grant, params }) => json({ files: listFilesDeep(resolveInside(grant.agent.benchmarksDir, join(params.id, "cases", params.case))) }),
  );

  table.add(
    { method: "get", path: `${base}/:id/cases/:case/files/content`, operationId: "benchmarks.caseFile", summary: "One file of a case", tag: "benchmarks", access: "agent", params: CaseParams, query: PathQuery, responses: { 200: { description: "{path, size, encoding, content, truncated}", schema: FileContent } } },
    ({ grant, params, query }) => {
      const dir = resolveInside(grant.agent.benchmarksDir, join(params.id, "cases", params.case));
      return json({ path: query.path, ...readFileContent(resolveInside(dir, query.path), MAX_READ) });
    },
  );

  table.add(
    { method: "get", path: `${base}/:id/rubric/files`, operationId: "benchmarks.rubricFiles", summary: "Rubric files of a benchmark", tag: "benchmarks", access: "agent", params: BenchParams, responses: { 200: { description: "{files: [{path, size}]}", schema: FileList } } },
    ({ grant, params }) => json({ files: listFilesDeep(resolveInside(grant.agent.benchmarksDir, join(params.id, "rubric"))) }),
  );

  table.add(
    { method: "get", path: `${base}/:id/rubric/files/content`, operationId: "benchmarks.rubricFile", summary: "One rubric file", tag: "benchmarks", access: "agent", params: BenchParams, query: PathQuery, responses: { 200: { description: "{path, size, encoding, content, truncated}", schema: FileContent } } },
    ({ grant, params, query }) => {
      const dir = resolveInside(grant.agent.benchmarksDir, join(params.id, "rubric"));
      return json({ path: query.path, ...readFileContent(resolveInside(dir, query.path), MAX_READ) });
    },
  );
}
