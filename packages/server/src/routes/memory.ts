/**
 * Agent memory browser (`agent_state/memory/<scope>/`): the scopes (`user`, and one per
 * workspace, named by core and carrying a `.workspace` file with the workspace path), their
 * files, one file's content, and deleting a file (owner). Paths are confined to the scope.
 * Placeholder insertion, export and import are not implemented (501).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { notImplemented } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { resolveInside } from "../services/confined-path.js";
import { listDir, listFilesDeep, readFileContent } from "../services/files.js";

const ScopeParams = z.object({ key: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, "is not a memory scope name") });
const FileParams = ScopeParams.extend({ name: z.string().min(1).max(255) });

export function memoryRoutes(table: RouteTable): void {
  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/memory", operationId: "memory.scopes", summary: "Memory scopes", tag: "memory", access: "agent", responses: { 200: { description: "{scopes: [{key, workspace, files}]}" } } },
    ({ grant }) => {
      const scopes = listDir(grant.agent.memoryDir)
        .filter((e) => e.type === "dir")
        .map((e) => {
          const dir = join(grant.agent.memoryDir, e.name);
          let workspace: string | null = null;
          try {
            workspace = readFileSync(join(dir, ".workspace"), "utf8").trim() || null;
          } catch {
            workspace = null;
          }
          return { key: e.name, workspace, files: listFilesDeep(dir).filter((f) => f.path !== ".workspace").length };
        });
      return json({ scopes });
    },
  );

  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/memory/scopes/:key/files", operationId: "memory.files", summary: "Files of one memory scope", tag: "memory", access: "agent", params: ScopeParams, responses: { 200: { description: "{files: [{path, size}]}" } } },
    ({ grant, params }) => json({ files: listFilesDeep(resolveInside(grant.agent.memoryDir, params.key)) }),
  );

  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/memory/scopes/:key/files/:name", operationId: "memory.readFile", summary: "One memory file", tag: "memory", access: "agent", params: FileParams, responses: { 200: { description: "{path, size, encoding, content, truncated}" } } },
    ({ grant, params }) => {
      const scope = resolveInside(grant.agent.memoryDir, params.key);
      return json({ path: params.name, ...readFileContent(resolveInside(scope, params.name), 2 * 1024 * 1024) });
    },
  );

  table.add(
    { method: "delete", path: "/api/projects/:p/agents/:a/memory/scopes/:key/files/:name", operationId: "memory.deleteFile", summary: "Delete one memory file", tag: "memory", access: "agent", need: "owner", params: FileParams, responses: { 204: { description: "Deleted" } } },
    ({ grant, params }) => {
      const scope = resolveInside(grant.agent.memoryDir, params.key);
      rmSync(resolveInside(scope, params.name));
      return noContent();
    },
  );

  for (const [method, action, id, feature] of [
    ["post", "template-placeholder", "memory.templatePlaceholder", "inserting the memory placeholder"],
    ["get", "export", "memory.export", "memory export"],
    ["post", "import", "memory.import", "memory import"],
  ] as const) {
    table.add(
      { method, path: `/api/projects/:p/agents/:a/memory/${action}`, operationId: id, summary: `${feature} (not implemented)`, tag: "memory", access: "agent", need: method === "get" ? "read" : "owner", responses: { 501: { description: "Not implemented" } } },
      () => {
        throw notImplemented(feature);
      },
    );
  }
}
