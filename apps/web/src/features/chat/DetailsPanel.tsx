/**
 * The session's details panel (SPEC §10 side panel "details"): its background processes
 * (what `exec_command` left running, with a link when one serves a local page) with Kill
 * and Remove, and where its trace is (download, and the Traces page). The process list is
 * fetched when the panel opens, when the task state changes, on Refresh, and every few
 * seconds while a task runs (processes come and go with the agent's commands).
 */
import { useCallback, useEffect, useState } from "react";
import { Link } from "react-router";
import { errorText } from "../../api/http";
import { killProcess, listProcesses, removeProcess } from "../../api/sessions";
import { traceDownloadUrl } from "../../api/traces";
import type { ProcessInfo, SessionSummary, TaskState } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";
import { relativeTime } from "../../lib/format";

const POLL_MS = 5000;

export function DetailsPanel({ session, taskState, onClose }: { session: SessionSummary; taskState: TaskState; onClose(): void }) {
  const [processes, setProcesses] = useState<ProcessInfo[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  const refresh = useCallback(() => {
    listProcesses(session.id).then(
      (p) => {
        setProcesses(p);
        setError(undefined);
      },
      (e: unknown) => setError(errorText(e)),
    );
  }, [session.id]);

  useEffect(refresh, [refresh, taskState]);
  useEffect(() => {
    if (taskState === "idle") return;
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh, taskState]);

  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      setError(errorText(e));
    }
    refresh();
  };

  return (
    <section aria-label="Session details" className="flex flex-col gap-3 border-b border-slate-200 bg-slate-50 px-3 py-3 text-sm sm:px-6 dark:border-slate-800 dark:bg-slate-900">
      <div className="flex items-center gap-2">
        <h2 className="flex-1 font-semibold">Processes</h2>
        <Button size="sm" variant="ghost" onClick={refresh}>
          Refresh
        </Button>
        <Button size="sm" variant="ghost" onClick={onClose} aria-label="Close details">
          Close
        </Button>
      </div>
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {processes?.length === 0 && <p className="text-xs text-slate-500">No background processes.</p>}
      {processes !== undefined && processes.length > 0 && (
        <ul aria-label="Background processes" className="flex flex-col gap-1">
          {processes.map((p) => (
            <li key={p.id} className="flex flex-wrap items-center gap-2 rounded-md border border-slate-200 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-950">
              <span className="font-mono text-xs">{p.id}</span>
              <span className={`rounded px-1.5 text-xs ${p.status === "running" ? "bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-100" : "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200"}`}>
                {p.status}
                {p.exitCode !== undefined && p.exitCode !== null ? ` (${p.exitCode})` : ""}
              </span>
              <span className="min-w-0 flex-1 truncate font-mono text-xs" title={p.command}>
                {p.label !== "" ? p.label : p.command}
              </span>
              {p.serviceUrl !== undefined && (
                <a href={p.serviceUrl} target="_blank" rel="noreferrer noopener" className="text-xs text-blue-700 underline dark:text-blue-300">
                  {p.serviceUrl}
                </a>
              )}
              <span className="text-xs text-slate-500">{relativeTime(p.started)}</span>
              {p.status === "running" ? (
                <Button size="sm" variant="danger" onClick={() => void act(() => killProcess(session.id, p.id))} aria-label={`Kill ${p.id}`}>
                  Kill
                </Button>
              ) : (
                <Button size="sm" onClick={() => void act(() => removeProcess(session.id, p.id))} aria-label={`Remove ${p.id}`}>
                  Remove
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="flex flex-wrap items-center gap-3 text-xs">
        <span className="font-semibold">Trace</span>
        <a href={traceDownloadUrl(session.projectId, session.agentId, session.id)} download className="text-blue-700 underline dark:text-blue-300">
          Download JSONL
        </a>
        <Link to="/traces" className="text-blue-700 underline dark:text-blue-300">
          Open the Traces page
        </Link>
      </div>
    </section>
  );
}
