/**
 * The Traces page: navigate agent → date → session → file, then see the session's analysis
 * (from the server, computed with core's trace summary: tasks, requests with context, cache,
 * output, duration and retries, compactions) for the chosen file as a chart and a table, the
 * file's event timeline (one row per line, coloured by lane) and a download link for the
 * session's JSONL. The trace is the single source of truth (SPEC §7); this page only reads it.
 */
import { useEffect, useMemo, useState } from "react";
import { errorText } from "../../api/http";
import { getTraceAnalysis, getTraceFile, listTraceSessions, traceDownloadUrl } from "../../api/traces";
import type { TraceAnalysis, TraceFilePage, TraceSessionEntry } from "../../api/types";
import { Page } from "../../components/layout/Page";
import { UPlotChart } from "../../components/UPlotChart";
import { SelectField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatDuration, formatTokens } from "../../lib/format";
import { timelineRow, type TimelineRow } from "../../lib/trace-analysis";
import { useProject } from "../../state/project-store";

const LANE: Record<TimelineRow["lane"], string> = {
  meta: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100",
  input: "bg-blue-100 text-blue-800 dark:bg-blue-900 dark:text-blue-100",
  model: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100",
  tool: "bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100",
  event: "bg-violet-100 text-violet-800 dark:bg-violet-900 dark:text-violet-100",
};

function ListPick<T extends string>({ label, items, value, onPick, render }: { label: string; items: readonly T[]; value: T | undefined; onPick(v: T): void; render(v: T): string }) {
  return (
    <section aria-label={label} className="min-w-0">
      <h2 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">{label}</h2>
      <ul className="max-h-64 overflow-y-auto rounded-md border border-slate-200 dark:border-slate-800">
        {items.length === 0 && <li className="px-2 py-1 text-sm text-slate-500">None</li>}
        {items.map((i) => (
          <li key={i}>
            <button type="button" aria-pressed={i === value} onClick={() => onPick(i)} className={`w-full truncate px-2 py-1 text-left font-mono text-xs ${i === value ? "bg-blue-50 font-semibold dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}>
              {render(i)}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export default function TracesPage() {
  const { projectId, agents } = useProject();
  const [agentId, setAgentId] = useState("");
  const [sessions, setSessions] = useState<TraceSessionEntry[] | undefined>(undefined);
  const [date, setDate] = useState<string | undefined>(undefined);
  const [sessionId, setSessionId] = useState<string | undefined>(undefined);
  const [fileIndex, setFileIndex] = useState<string | undefined>(undefined);
  const [file, setFile] = useState<TraceFilePage | undefined>(undefined);
  const [analysis, setAnalysis] = useState<TraceAnalysis | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    if (agentId === "" && agents.length > 0) setAgentId(agents.find((a) => a.agentId === "default_agent")?.agentId ?? agents[0]?.agentId ?? "");
  }, [agents, agentId]);

  useEffect(() => {
    if (projectId === undefined || agentId === "") return;
    let live = true;
    setSessions(undefined);
    setDate(undefined);
    setSessionId(undefined);
    listTraceSessions(projectId, agentId).then(
      (s) => {
        if (!live) return;
        setSessions(s);
        setDate(s[0]?.date);
      },
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, agentId]);

  const dates = useMemo(() => [...new Set((sessions ?? []).map((s) => s.date))].sort().reverse(), [sessions]);
  const daySessions = useMemo(() => (sessions ?? []).filter((s) => s.date === date), [sessions, date]);
  const session = daySessions.find((s) => s.sessionId === sessionId);

  useEffect(() => {
    const first = daySessions[0];
    if (first !== undefined && !daySessions.some((s) => s.sessionId === sessionId)) setSessionId(first.sessionId);
  }, [daySessions, sessionId]);

  useEffect(() => {
    if (session !== undefined) setFileIndex(String(session.files[session.files.length - 1]?.index ?? 1));
  }, [session]);

  useEffect(() => {
    if (projectId === undefined || sessionId === undefined || fileIndex === undefined) return;
    let live = true;
    setFile(undefined);
    getTraceFile(projectId, agentId, sessionId, Number(fileIndex)).then(
      (f) => live && setFile(f),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, agentId, sessionId, fileIndex]);

  useEffect(() => {
    if (projectId === undefined || sessionId === undefined) return;
    let live = true;
    setAnalysis(undefined);
    getTraceAnalysis(projectId, agentId, sessionId).then(
      (a) => live && setAnalysis(a),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, agentId, sessionId]);

  const points = useMemo(() => (analysis?.requests ?? []).filter((r) => String(r.fileIndex) === fileIndex), [analysis, fileIndex]);
  const rows = useMemo(() => (file?.lines ?? []).map((l) => timelineRow(l.line, l.message)), [file]);
  const t0 = rows[0]?.at ?? 0;
  const chart = useMemo(
    () => ({
      x: points.map((p) => p.n),
      series: [
        { label: "Context (input tokens)", color: "#2563eb", values: points.map((p) => p.context), format: formatTokens },
        { label: "Cached", color: "#16a34a", values: points.map((p) => p.cacheRead), format: formatTokens },
        { label: "Output", color: "#ea580c", values: points.map((p) => p.output), format: formatTokens },
      ],
    }),
    [points],
  );

  return (
    <Page title="Traces">
      <div className="grid grid-cols-1 gap-3 md:grid-cols-4">
        <SelectField label="Agent" value={agentId} onValue={setAgentId} options={agents.map((a) => ({ value: a.agentId, label: a.name ?? a.agentId }))} />
        <ListPick label="Date" items={dates} value={date} onPick={setDate} render={(d) => d} />
        <ListPick label="Session" items={daySessions.map((s) => s.sessionId)} value={sessionId} onPick={setSessionId} render={(s) => s.replace(/^session-\d{4}-\d{2}-\d{2}-/, "")} />
        <ListPick label="File" items={(session?.files ?? []).map((f) => String(f.index))} value={fileIndex} onPick={setFileIndex} render={(i) => `#${i.padStart(3, "0")} (${formatTokens((session?.files.find((f) => String(f.index) === i)?.size ?? 0))}B)`} />
      </div>
      {error !== undefined && <Notice tone="error">{error}</Notice>}
      {sessions === undefined && agentId !== "" && <Spinner label="Loading traces" />}
      {sessions?.length === 0 && <Notice>No traces for this agent yet.</Notice>}
      {session !== undefined && projectId !== undefined && (
        <div className="flex flex-wrap items-center gap-3 text-sm">
          <span className="font-mono text-xs break-all">{session.sessionId}</span>
          <a href={traceDownloadUrl(projectId, agentId, session.sessionId)} download className="text-blue-600 underline dark:text-blue-400">
            Download JSONL
          </a>
        </div>
      )}
      {file === undefined && sessionId !== undefined && <Spinner label="Loading the trace file" />}
      {analysis !== undefined && (
        <p aria-label="Session totals" className="text-sm text-slate-600 dark:text-slate-400">
          {analysis.tasks.length} task{analysis.tasks.length === 1 ? "" : "s"} · {analysis.totals.requests} requests · {analysis.totals.retries} retried · {analysis.totals.toolCalls} tool calls · {analysis.totals.compactions} compactions · {formatTokens(analysis.totals.total)} tokens · {formatDuration(analysis.totals.durationMs)} in requests · {analysis.status}
        </p>
      )}
      {file !== undefined && (
        <>
          <section aria-label="Requests" className="flex flex-col gap-2">
            <UPlotChart title={`Per request: context size and cached tokens (${points.length} requests)`} x={chart.x} series={chart.series} time={false} xLabel="request" />
            <table className="w-full text-xs tabular-nums">
              <caption className="sr-only">Requests of this trace file</caption>
              <thead>
                <tr className="text-left text-slate-500">
                  <th className="pr-3">#</th>
                  <th className="pr-3">Task</th>
                  <th className="pr-3">Status</th>
                  <th className="pr-3">Context</th>
                  <th className="pr-3">Cached</th>
                  <th className="pr-3">Output</th>
                  <th className="pr-3">Tools</th>
                  <th>Time</th>
                </tr>
              </thead>
              <tbody>
                {points.map((p) => (
                  <tr key={p.n} className="border-t border-slate-200 dark:border-slate-800" title={p.error}>
                    <td className="pr-3">{p.n}</td>
                    <td className="pr-3">{p.task}</td>
                    <td className="pr-3">
                      {p.status}
                      {p.retryInMs !== undefined ? ` · retried after ${formatDuration(p.retryInMs)}` : ""}
                    </td>
                    <td className="pr-3">{formatTokens(p.context)}</td>
                    <td className="pr-3">
                      {formatTokens(p.cacheRead)}
                      {p.cacheHitRate !== undefined ? ` (${Math.round(p.cacheHitRate * 100)}%)` : ""}
                    </td>
                    <td className="pr-3">{formatTokens(p.output)}</td>
                    <td className="pr-3">{p.toolCalls}</td>
                    <td>{p.durationMs === undefined ? "—" : formatDuration(p.durationMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section aria-labelledby="trace-timeline">
            <h2 id="trace-timeline" className="mb-2 font-semibold">
              Timeline ({file.total} lines)
            </h2>
            <ol className="flex flex-col gap-0.5 font-mono text-xs">
              {rows.map((r) => (
                <li key={r.line} className="flex items-start gap-2">
                  <span className="w-16 shrink-0 text-right text-slate-500 tabular-nums">+{formatDuration(Math.max(0, r.at - t0))}</span>
                  <span className={`shrink-0 rounded px-1 ${LANE[r.lane]}`}>{r.type}</span>
                  <span className="min-w-0 break-words text-slate-700 dark:text-slate-300">{r.text}</span>
                </li>
              ))}
            </ol>
          </section>
        </>
      )}
    </Page>
  );
}
