/**
 * Agent memory browser (`agent_state/memory/`): the scopes (`user`, and one per workspace,
 * named by core and carrying a `.workspace` file with the workspace path), a scope's files,
 * one file (by its path inside the memory folder, e.g. `user/MEMORY.md`) to read, or a file
 * or a whole scope to delete,
 * and a portable export/import (services/memory-files.ts). `replace` empties the folder
 * first and so answers 409 `confirm_required` until the request says `confirm: true`.
 * `template-placeholder` adds `{{MEMORY}}` to the system prompt when it lacks it.
 * Members read; the owner changes. Every path is confined to the memory folder.
 */
import { rmSync } from "node:fs";
import { Schema } from "effect";
import { Matching, Text } from "../http/schemas.js";
import { ApiError } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import { insertPlaceholder } from "../services/agent-config-file.js";
import { realRoot, resolveInside } from "../services/confined-path.js";
import { listFilesDeep, readFileContent } from "../services/files.js";
import { exportMemory, importMemory, memoryScopes, MemoryPayload } from "../services/memory-files.js";
import { FileContent, FileList, MemoryExport, MemoryImportResult, MemoryScopes, SystemConfigText } from "../contract/index.js";

const ScopeParams = Schema.Struct({ key: Matching(/^[A-Za-z0-9_.-]{1,120}$/, "is not a memory scope name") });
const FileParams = Schema.Struct({ name: Text(1, 1024) });
const ImportBody = Schema.Struct({ payload: MemoryPayload, mode: Schema.Literal("skip", "overwrite", "replace"), confirm: Schema.optional(Schema.Boolean) });

export function memoryRoutes(table: RouteTable): void {
  const base = "/api/projects/:p/agents/:a/memory";

  table.add(
    { method: "get", path: base, operationId: "memory.scopes", summary: "Memory scopes", tag: "memory", access: "agent", responses: { 200: { description: "{scopes: [{key, workspace, files}]}", schema: MemoryScopes } } },
    ({ grant }) => json({ scopes: memoryScopes(grant.agent.memoryDir) }),
  );

  table.add(
    { method: "get", path: `${base}/scopes/:key/files`, operationId: "memory.files", summary: "Files of one memory scope", tag: "memory", access: "agent", params: ScopeParams, responses: { 200: { description: "{files: [{path, size}]}", schema: FileList } } },
    ({ grant, params }) => json({ files: listFilesDeep(resolveInside(grant.agent.memoryDir, params.key)) }),
  );

  table.add(
    { method: "get", path: `${base}/files/:name{.+}`, operationId: "memory.readFile", summary: "One memory file, by its path in the memory folder", tag: "memory", access: "agent", params: FileParams, responses: { 200: { description: "{path, size, encoding, content, truncated}", schema: FileContent } } },
    ({ grant, params }) => json({ path: params.name, ...readFileContent(resolveInside(grant.agent.memoryDir, params.name), 2 * 1024 * 1024) }),
  );

  table.add(
    { method: "delete", path: `${base}/files/:name{.+}`, operationId: "memory.deleteFile", summary: "Delete one memory file", tag: "memory", access: "agent", need: "owner", params: FileParams, responses: { 204: { description: "Deleted" } } },
    ({ grant, params }) => {
      const target = resolveInside(grant.agent.memoryDir, params.name);
      if (target === realRoot(grant.agent.memoryDir)) throw new ApiError(400, "invalid_path", "name a file or a scope inside the memory folder", { field: "name" });
      rmSync(target, { recursive: true });
      return noContent();
    },
  );

  table.add(
    { method: "get", path: `${base}/export`, operationId: "memory.export", summary: "Every memory file, as one JSON document", tag: "memory", access: "agent", responses: { 200: { description: "{format: penguin-memory, version: 1, files: [{path, encoding, content}]}", schema: MemoryExport } } },
    ({ grant }) => json(exportMemory(grant.agent.memoryDir), 200, { "content-disposition": `attachment; filename="${grant.agent.agentId}-memory.json"` }),
  );

  table.add(
    {
      method: "post",
      path: `${base}/import`,
      operationId: "memory.import",
      summary: "Import an export: skip existing files, overwrite them, or replace the whole folder (confirm)",
      tag: "memory",
      access: "agent",
      need: "owner",
      body: ImportBody,
      maxBodyBytes: 30 * 1024 * 1024,
      responses: { 200: { description: "{written, skipped, removed}", schema: MemoryImportResult }, 409: { description: "confirm_required (mode replace without confirm)" } },
    },
    ({ grant, body }) => {
      if (body.mode === "replace" && body.confirm !== true) {
        throw new ApiError(409, "confirm_required", "replace deletes every memory file first; send confirm: true to go ahead");
      }
      return json(importMemory(grant.agent.memoryDir, body.payload, body.mode));
    },
  );

  table.add(
    { method: "post", path: `${base}/template-placeholder`, operationId: "memory.templatePlaceholder", summary: "Append {{MEMORY}} to the system prompt", tag: "memory", access: "agent", need: "owner", responses: { 200: { description: "{systemConfig}", schema: SystemConfigText }, 409: { description: "placeholder_present" } } },
    async ({ grant }) => json({ systemConfig: await insertPlaceholder(grant.agent, "{{MEMORY}}") }),
  );
}
