/**
 * Agent State snapshots (export as tar.gz, import with version check). Not implemented
 * (501): core has no snapshot service yet and the server has no tar dependency.
 */
import { notImplemented } from "../http/api-error.js";
import type { RouteTable } from "../http/route-table.js";

export function snapshotRoutes(table: RouteTable): void {
  table.add(
    { method: "get", path: "/api/projects/:p/agents/:a/export", operationId: "snapshots.export", summary: "Export Agent State (not implemented)", tag: "snapshots", access: "agent", responses: { 501: { description: "Not implemented" } } },
    () => {
      throw notImplemented("Agent State export");
    },
  );
  table.add(
    { method: "post", path: "/api/projects/:p/agents/:a/import", operationId: "snapshots.import", summary: "Import Agent State (not implemented)", tag: "snapshots", access: "agent", need: "owner", responses: { 501: { description: "Not implemented" } } },
    () => {
      throw notImplemented("Agent State import");
    },
  );
}
