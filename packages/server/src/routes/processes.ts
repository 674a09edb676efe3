/**
 * Background commands of a session (`/api/sessions/:id/processes`): listing, killing and
 * removing the processes `exec_command` left running. Not implemented (501): core's Session
 * does not expose its Environment's process table yet.
 */
import { notImplemented } from "../http/api-error.js";
import type { RouteTable } from "../http/route-table.js";

export function processRoutes(table: RouteTable): void {
  for (const [method, path, id] of [
    ["get", "/api/sessions/:id/processes", "processes.list"],
    ["post", "/api/sessions/:id/processes/:pid/kill", "processes.kill"],
    ["delete", "/api/sessions/:id/processes/:pid", "processes.delete"],
  ] as const) {
    table.add(
      { method, path, operationId: id, summary: "Background commands (not implemented)", tag: "processes", access: "session", responses: { 501: { description: "Not implemented" } } },
      () => {
        throw notImplemented("the background process API");
      },
    );
  }
}
