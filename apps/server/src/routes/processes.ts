/**
 * Background commands of a session (`/api/sessions/:id/processes`): the processes
 * `exec_command` left running or started with `run_in_background`, from the session's own
 * process table in core (services/process-view.ts adds `serviceUrl`). Kill stops a command's
 * process group (SIGTERM, then SIGKILL) without a notice to the model; delete forgets a
 * finished one (409 `process_running` while it runs). A session that is not loaded has no
 * processes: unloading a session stops every command it started.
 */
import { Schema } from "effect";
import { Matching } from "../http/schemas.js";
import { conflict, notFound } from "../http/api-error.js";
import { json, noContent } from "../http/respond.js";
import type { RouteTable } from "../http/route-table.js";
import type { ServerContext } from "../server-context.js";
import { processViews } from "../services/process-view.js";
import { ProcessKilled, ProcessList } from "../contract/index.js";

const Pid = Schema.Struct({ pid: Matching(/^[A-Za-z0-9_-]{1,32}$/, "is not a process id") });

export function processRoutes(table: RouteTable, ctx: ServerContext): void {
  const coreOf = (sessionId: string) => ctx.sessions.peek(sessionId)?.core;

  table.add(
    { method: "get", path: "/api/sessions/:id/processes", operationId: "processes.list", summary: "Background commands of the session", tag: "processes", access: "session", responses: { 200: { description: "{processes: [{id, command, label, status, started, exitCode?, serviceUrl?}]}", schema: ProcessList } } },
    ({ grant }) => json({ processes: processViews(coreOf(grant.session.sessionId)) }),
  );

  table.add(
    { method: "post", path: "/api/sessions/:id/processes/:pid/kill", operationId: "processes.kill", summary: "Stop a background command (process group)", tag: "processes", access: "session", need: "control", params: Pid, responses: { 200: { description: "{id, status: killed|exited}", schema: ProcessKilled } } },
    async ({ grant, params }) => {
      const core = coreOf(grant.session.sessionId);
      const result = core === undefined ? "missing" : await core.killProcess(params.pid);
      if (result === "missing") throw notFound(`process ${params.pid}`);
      return json({ id: params.pid, status: result });
    },
  );

  table.add(
    { method: "delete", path: "/api/sessions/:id/processes/:pid", operationId: "processes.delete", summary: "Forget a finished background command", tag: "processes", access: "session", need: "control", params: Pid, responses: { 204: { description: "Removed" }, 409: { description: "process_running" } } },
    ({ grant, params }) => {
      const core = coreOf(grant.session.sessionId);
      const result = core === undefined ? "missing" : core.removeProcess(params.pid);
      if (result === "missing") throw notFound(`process ${params.pid}`);
      if (result === "running") throw conflict("process_running", `process ${params.pid} is still running; kill it first`);
      return noContent();
    },
  );
}
