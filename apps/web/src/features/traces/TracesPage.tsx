/**
 * The Traces page: navigate agent → date → session → file, then see the session's analysis
 * (from the server, computed with core's trace summary: tasks, requests with context, cache,
 * output, duration and retries, compactions) for the chosen file as a chart and a table, the
 * file's event timeline (one row per line, coloured by lane) and a download link for the
 * session's JSONL. The trace is the single source of truth (SPEC §7); this page only reads it.
 *
 * Time travel (TimeTravel.tsx) scrubs over the session's events; the page keeps the cursor's
 * position so the timeline can highlight that event (showing the file it is in, and scrolling
 * only the timeline's own box to it) and a click on a row's time can move the cursor there.
 */
import { createEffect, createMemo, createSignal, For, on, onCleanup, Show } from "solid-js";
import { errorText } from "../../api/http";
import { recordUrl } from "../../api/time-travel";
import { getTraceAnalysis, getTraceFile, listTraceSessions, traceDownloadUrl } from "../../api/traces";
import type { TraceAnalysis, TraceFilePage, TraceSessionEntry } from "../../api/types";
import { Page } from "../../components/layout/Page";
import { UPlotChart, type ChartSeries } from "../../components/UPlotChart";
import { SelectField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatBytes, formatDuration, formatTokens } from "../../lib/format";
import { formatPosition, type ScrubEvent } from "../../lib/time-travel/cursor";
import { timelineRow, type TimelineRow } from "../../lib/trace-analysis";
import { project } from "../../state/project-store";
import { TimeTravel } from "./TimeTravel";

const LANE: Record<TimelineRow["lane"], string> = {
  meta: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100",
  input: "bg-blue-100 text-blue-800 dark:bg-blue-900 dark:text-blue-100",
  model: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100",
  tool: "bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100",
  event: "bg-violet-100 text-violet-800 dark:bg-violet-900 dark:text-violet-100",
};

function ListPick<T extends string>(props: { label: string; items: readonly T[]; value: T | undefined; onPick(v: T): void; render(v: T): string }) {
  return (
    <section aria-label={props.label} class="min-w-0">
      <h2 class="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">{props.label}</h2>
      <ul class="max-h-64 overflow-y-auto rounded-md border border-slate-200 dark:border-slate-800">
        <For each={props.items} fallback={<li class="px-2 py-1 text-sm text-slate-500">None</li>}>
          {(i) => (
            <li>
              <button
                type="button"
                aria-pressed={i === props.value}
                onClick={() => props.onPick(i)}
                class={`w-full truncate px-2 py-1 text-left font-mono text-xs ${i === props.value ? "bg-blue-50 font-semibold dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}
              >
                {props.render(i)}
              </button>
            </li>
          )}
        </For>
      </ul>
    </section>
  );
}

export default function TracesPage() {
  const [agentId, setAgentId] = createSignal("");
  const [sessions, setSessions] = createSignal<TraceSessionEntry[] | undefined>(undefined);
  const [date, setDate] = createSignal<string | undefined>(undefined);
  const [sessionId, setSessionId] = createSignal<string | undefined>(undefined);
  const [fileIndex, setFileIndex] = createSignal<string | undefined>(undefined);
  const [file, setFile] = createSignal<TraceFilePage | undefined>(undefined);
  const [analysis, setAnalysis] = createSignal<TraceAnalysis | undefined>(undefined);
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [position, setPosition] = createSignal<string | undefined>(undefined);
  const [cursor, setCursor] = createSignal<ScrubEvent | undefined>(undefined);

  createEffect(() => {
    const agents = project.agents;
    if (agentId() === "" && agents.length > 0) setAgentId(agents.find((a) => a.agentId === "default_agent")?.agentId ?? agents[0]?.agentId ?? "");
  });

  createEffect(
    on([() => project.projectId, agentId], ([projectId, agent]) => {
      if (projectId === undefined || agent === "") return;
      let live = true;
      setSessions(undefined);
      setDate(undefined);
      setSessionId(undefined);
      listTraceSessions(projectId, agent).then(
        (s) => {
          if (!live) return;
          setSessions(s);
          setDate(s[0]?.date);
        },
        (e: unknown) => live && setError(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );

  const dates = createMemo(() => [...new Set((sessions() ?? []).map((s) => s.date))].sort().reverse());
  const daySessions = createMemo(() => (sessions() ?? []).filter((s) => s.date === date()));
  const session = createMemo(() => daySessions().find((s) => s.sessionId === sessionId()));

  createEffect(() => {
    const first = daySessions()[0];
    if (first !== undefined && !daySessions().some((s) => s.sessionId === sessionId())) setSessionId(first.sessionId);
  });

  createEffect(
    on(session, (s) => {
      setPosition(undefined);
      setCursor(undefined);
      if (s !== undefined) setFileIndex(String(s.files[s.files.length - 1]?.index ?? 1));
    }),
  );

  // The cursor moved: remember it, and show the file its event is in.
  const onCursor = (e: ScrubEvent | undefined) => {
    setCursor(e);
    setPosition(e?.position);
    if (e !== undefined && String(e.fileIndex) !== fileIndex()) setFileIndex(String(e.fileIndex));
  };
  const isCursor = (line: number) => {
    const c = cursor();
    return c !== undefined && String(c.fileIndex) === fileIndex() && c.line === line;
  };
  let timelineBox: HTMLOListElement | undefined;
  createEffect(() => {
    const c = cursor();
    if (c === undefined || timelineBox === undefined || file() === undefined) return;
    const row = timelineBox.querySelector<HTMLElement>(`[data-line="${c.line}"]`);
    if (row !== null) timelineBox.scrollTop = Math.max(0, row.offsetTop - timelineBox.clientHeight / 2);
  });

  createEffect(
    on([() => project.projectId, agentId, sessionId, fileIndex], ([projectId, agent, sid, index]) => {
      if (projectId === undefined || sid === undefined || index === undefined) return;
      let live = true;
      setFile(undefined);
      getTraceFile(projectId, agent, sid, Number(index)).then(
        (f) => live && setFile(f),
        (e: unknown) => live && setError(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );

  createEffect(
    on([() => project.projectId, agentId, sessionId], ([projectId, agent, sid]) => {
      if (projectId === undefined || sid === undefined) return;
      let live = true;
      setAnalysis(undefined);
      getTraceAnalysis(projectId, agent, sid).then(
        (a) => live && setAnalysis(a),
        (e: unknown) => live && setError(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );

  const points = createMemo(() => (analysis()?.requests ?? []).filter((r) => String(r.fileIndex) === fileIndex()));
  const rows = createMemo(() => (file()?.lines ?? []).map((l) => ({ ...timelineRow(l.line, l.message), cut: l.cut })));
  const t0 = () => rows()[0]?.at ?? 0;
  const chartX = createMemo(() => points().map((p) => p.n));
  const chartSeries = createMemo((): ChartSeries[] => [
    { label: "Context (input tokens)", color: "#2563eb", values: points().map((p) => p.context), format: formatTokens },
    { label: "Cached", color: "#16a34a", values: points().map((p) => p.cacheRead), format: formatTokens },
    { label: "Output", color: "#ea580c", values: points().map((p) => p.output), format: formatTokens },
  ]);

  return (
    <Page title="Traces">
      <div class="grid grid-cols-1 gap-3 md:grid-cols-4">
        <SelectField label="Agent" value={agentId()} onValue={setAgentId} options={project.agents.map((a) => ({ value: a.agentId, label: a.name ?? a.agentId }))} />
        <ListPick label="Date" items={dates()} value={date()} onPick={setDate} render={(d) => d} />
        <ListPick label="Session" items={daySessions().map((s) => s.sessionId)} value={sessionId()} onPick={setSessionId} render={(s) => s.replace(/^session-\d{4}-\d{2}-\d{2}-/, "")} />
        <ListPick
          label="File"
          items={(session()?.files ?? []).map((f) => String(f.index))}
          value={fileIndex()}
          onPick={setFileIndex}
          render={(i) => `#${i.padStart(3, "0")} (${formatTokens(session()?.files.find((f) => String(f.index) === i)?.size ?? 0)}B)`}
        />
      </div>
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={sessions() === undefined && agentId() !== "" && error() === undefined}>
        <Spinner label="Loading traces" />
      </Show>
      <Show when={sessions()?.length === 0}>
        <Notice>No traces for this agent yet.</Notice>
      </Show>
      <Show when={session() !== undefined && project.projectId !== undefined}>
        <div class="flex flex-wrap items-center gap-3 text-sm">
          <span class="font-mono text-xs break-all">{session()?.sessionId}</span>
          <a href={traceDownloadUrl(project.projectId ?? "", agentId(), session()?.sessionId ?? "")} download="" class="text-blue-600 underline dark:text-blue-400">
            Download JSONL
          </a>
        </div>
      </Show>
      <Show when={file() === undefined && sessionId() !== undefined && error() === undefined}>
        <Spinner label="Loading the trace file" />
      </Show>
      <Show when={analysis()}>
        {(a) => (
          <p aria-label="Session totals" class="text-sm text-slate-600 dark:text-slate-400">
            {a().tasks.length} task{a().tasks.length === 1 ? "" : "s"} · {a().totals.requests} requests · {a().totals.retries} retried · {a().totals.toolCalls} tool calls · {a().totals.compactions} compactions ·{" "}
            {formatTokens(a().totals.total)} tokens · {formatDuration(a().totals.durationMs)} in requests · {a().status}
          </p>
        )}
      </Show>
      <Show when={file() !== undefined}>
        <section aria-label="Requests" class="flex flex-col gap-2">
          <UPlotChart title={`Per request: context size and cached tokens (${points().length} requests)`} x={chartX()} series={chartSeries()} time={false} xLabel="request" />
          <div class="overflow-x-auto">
            <table class="w-full text-xs tabular-nums">
              <caption class="sr-only">Requests of this trace file</caption>
              <thead>
                <tr class="text-left text-slate-500">
                  <th class="pr-3">#</th>
                  <th class="pr-3">Task</th>
                  <th class="pr-3">Status</th>
                  <th class="pr-3">Context</th>
                  <th class="pr-3">Cached</th>
                  <th class="pr-3">Output</th>
                  <th class="pr-3">Tools</th>
                  <th>Time</th>
                </tr>
              </thead>
              <tbody>
                <For each={points()}>
                  {(p) => (
                    <tr class="border-t border-slate-200 dark:border-slate-800" title={p.error}>
                      <td class="pr-3">{p.n}</td>
                      <td class="pr-3">{p.task}</td>
                      <td class="pr-3">
                        {p.status}
                        {p.retryInMs !== undefined ? ` · retried after ${formatDuration(p.retryInMs)}` : ""}
                      </td>
                      <td class="pr-3">{formatTokens(p.context)}</td>
                      <td class="pr-3">
                        {formatTokens(p.cacheRead)}
                        {p.cacheHitRate !== undefined ? ` (${Math.round(p.cacheHitRate * 100)}%)` : ""}
                      </td>
                      <td class="pr-3">{formatTokens(p.output)}</td>
                      <td class="pr-3">{p.toolCalls}</td>
                      <td>{p.durationMs === undefined ? "—" : formatDuration(p.durationMs)}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
          </div>
        </section>
      </Show>
      <Show when={project.projectId !== undefined ? session() : undefined}>
        {(s) => (
          <TimeTravel projectId={project.projectId ?? ""} agentId={agentId()} sessionId={s().sessionId} fileIndexes={s().files.map((f) => f.index)} position={position()} onPosition={onCursor}>
            <Show when={file()}>
              {(f) => (
                <section aria-labelledby="trace-timeline" class="min-w-0">
                  <h2 id="trace-timeline" class="mb-2 font-semibold">
                    Timeline ({f().total} lines)
                  </h2>
                  <ol ref={timelineBox} aria-label="Events of this trace file" class="relative flex max-h-96 flex-col gap-0.5 overflow-y-auto font-mono text-xs lg:max-h-[40rem]">
                    <For each={rows()}>
                      {(r) => (
                        <li data-line={r.line} aria-current={isCursor(r.line) ? "step" : undefined} class={`flex items-start gap-2 rounded ${isCursor(r.line) ? "bg-blue-100 ring-2 ring-blue-500 dark:bg-blue-950" : ""}`}>
                          <button
                            type="button"
                            title={`Move the time-travel cursor to line ${r.line}`}
                            aria-label={`Go to line ${r.line}`}
                            onClick={() => setPosition(formatPosition(Number(fileIndex()), r.line))}
                            class="w-16 shrink-0 text-right text-slate-500 tabular-nums hover:text-blue-600 hover:underline"
                          >
                            +{formatDuration(Math.max(0, r.at - t0()))}
                          </button>
                          <span class={`shrink-0 rounded px-1 ${LANE[r.lane]}`}>{r.type}</span>
                          <span class="min-w-0 break-words text-slate-700 dark:text-slate-300">
                            {r.text}
                            <Show when={r.cut}>
                              {(cut) => (
                                <>
                                  {" "}
                                  <a href={recordUrl(sessionId() ?? "", cut().at)} target="_blank" rel="noopener" class="text-blue-700 underline dark:text-blue-300">
                                    … {formatBytes(cut().bytes)} cut, load the whole record
                                  </a>
                                </>
                              )}
                            </Show>
                          </span>
                        </li>
                      )}
                    </For>
                  </ol>
                </section>
              )}
            </Show>
          </TimeTravel>
        )}
      </Show>
    </Page>
  );
}
