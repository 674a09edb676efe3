/**
 * The Usage page: filters (time range, agent, model), summary cards (requests, success
 * rate, tokens cached and uncached, output, cost), charts over time (requests and success
 * rate; cached input, uncached input and output tokens; cost) and the failed-requests
 * table. Every figure comes from the server (`P/usage`, `P/usage/errors`), which prices
 * tokens at query time; a model without a price is flagged, never counted as free.
 */
import { useEffect, useMemo, useState } from "react";
import { errorText } from "../../api/http";
import type { UsageErrorItem, UsageReport } from "../../api/types";
import { getUsage, getUsageErrors, type UsageFilter } from "../../api/usage";
import { Page } from "../../components/layout/Page";
import { UPlotChart } from "../../components/UPlotChart";
import { Button } from "../../components/ui/Button";
import { SelectField, TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { formatCost, formatDateTime, formatTokens } from "../../lib/format";
import { fillBuckets, granularityFor } from "../../lib/usage-series";
import { useProject } from "../../state/project-store";

type Range = "1h" | "24h" | "7d" | "30d" | "90d" | "custom";
const RANGES: { value: Range; label: string; ms: number }[] = [
  { value: "1h", label: "Last hour", ms: 3_600_000 },
  { value: "24h", label: "Last 24 hours", ms: 86_400_000 },
  { value: "7d", label: "Last 7 days", ms: 7 * 86_400_000 },
  { value: "30d", label: "Last 30 days", ms: 30 * 86_400_000 },
  { value: "90d", label: "Last 90 days", ms: 90 * 86_400_000 },
  { value: "custom", label: "Custom", ms: 0 },
];

const PAGE_SIZE = 20;

function Card({ label, value, sub }: { label: string; value: string; sub?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 p-3 dark:border-slate-800">
      <div className="text-xs text-slate-500">{label}</div>
      <div className="text-xl font-semibold tabular-nums">{value}</div>
      {sub !== undefined && <div className="text-xs text-slate-500">{sub}</div>}
    </div>
  );
}

function dayStart(date: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  return m === null ? undefined : new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
}

export default function UsagePage() {
  const { projectId, agents, models } = useProject();
  const [range, setRange] = useState<Range>("24h");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [agentId, setAgentId] = useState("");
  const [model, setModel] = useState("");
  const [report, setReport] = useState<UsageReport | undefined>(undefined);
  const [errors, setErrors] = useState<{ items: UsageErrorItem[]; total: number }>({ items: [], total: 0 });
  const [errorPage, setErrorPage] = useState(0);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [tick, setTick] = useState(0);

  const span = useMemo(() => {
    const now = Date.now();
    if (range !== "custom") return { fromTs: now - (RANGES.find((r) => r.value === range)?.ms ?? 86_400_000), toTs: now };
    const f = dayStart(from) ?? now - 7 * 86_400_000;
    const t = (dayStart(to) ?? now) + 86_400_000;
    return { fromTs: f, toTs: Math.max(f + 60_000, t) };
    // `tick` refreshes "now" for the relative ranges.
  }, [range, from, to, tick]);

  const filter: UsageFilter = useMemo(() => {
    const f: UsageFilter = { fromTs: Math.floor(span.fromTs), toTs: Math.floor(span.toTs) };
    if (agentId !== "") f.agentId = agentId;
    const m = models?.models.find((x) => `${x.provider}/${x.modelId}` === model);
    if (m !== undefined) {
      f.provider = m.provider;
      f.modelId = m.modelId;
    }
    return f;
  }, [span, agentId, model, models]);
  const granularity = granularityFor(span.toTs - span.fromTs);

  useEffect(() => {
    if (projectId === undefined) return;
    let live = true;
    setFailure(undefined);
    Promise.all([getUsage(projectId, filter, "date", granularity), getUsageErrors(projectId, filter, PAGE_SIZE, errorPage * PAGE_SIZE)]).then(
      ([r, e]) => {
        if (!live) return;
        setReport(r);
        setErrors(e);
      },
      (e: unknown) => live && setFailure(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, filter, granularity, errorPage]);

  const points = useMemo(() => (report === undefined ? [] : fillBuckets(report.rows, granularity, span.fromTs, span.toTs)), [report, granularity, span]);
  const x = useMemo(() => points.map((p) => p.t / 1000), [points]);
  const charts = useMemo(() => {
    const v = (f: (r: NonNullable<(typeof points)[number]["row"]>) => number) => points.map((p) => (p.row === undefined ? 0 : f(p.row)));
    return {
      requests: [
        { label: "Requests", color: "#2563eb", values: v((r) => r.requests), bars: true },
        { label: "Success rate %", color: "#16a34a", values: points.map((p) => (p.row === undefined || p.row.requests === 0 ? null : (100 * (p.row.requests - p.row.failures)) / p.row.requests)), scale: "y2" as const, format: (n: number) => `${n.toFixed(0)}%` },
      ],
      tokens: [
        { label: "Cached input", color: "#0891b2", values: v((r) => r.cacheRead), format: formatTokens },
        { label: "Uncached input", color: "#7c3aed", values: v((r) => r.cacheWrite), format: formatTokens },
        { label: "Output", color: "#ea580c", values: v((r) => r.output), format: formatTokens },
      ],
      cost: [{ label: "Cost (USD)", color: "#db2777", values: v((r) => r.cost), bars: true, format: (n: number) => formatCost(n) }],
    };
  }, [points]);

  const t = report?.totals;
  const input = t === undefined ? 0 : t.cacheRead + t.cacheWrite;
  const successRate = t === undefined || t.requests === 0 ? undefined : (100 * (t.requests - t.failures)) / t.requests;

  return (
    <Page title="Usage" actions={<Button onClick={() => setTick((n) => n + 1)}>Refresh</Button>}>
      <form aria-label="Filters" className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Time range" value={range} onValue={(r) => { setRange(r); setErrorPage(0); }} options={RANGES.map((r) => ({ value: r.value, label: r.label }))} />
        <SelectField label="Agent" value={agentId === "" ? "__all" : agentId} onValue={(a) => { setAgentId(a === "__all" ? "" : a); setErrorPage(0); }} options={[{ value: "__all", label: "All agents" }, ...agents.map((a) => ({ value: a.agentId, label: a.name ?? a.agentId }))]} />
        <SelectField label="Model" value={model === "" ? "__all" : model} onValue={(m) => { setModel(m === "__all" ? "" : m); setErrorPage(0); }} options={[{ value: "__all", label: "All models" }, ...(models?.models ?? []).map((m) => ({ value: `${m.provider}/${m.modelId}`, label: `${m.provider}/${m.modelId}` }))]} />
        {range === "custom" && (
          <div className="flex gap-2">
            <TextField label="From" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
            <TextField label="To" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
          </div>
        )}
      </form>
      {failure !== undefined && <Notice tone="error">{failure}</Notice>}
      <section aria-label="Summary" className="grid grid-cols-2 gap-3 lg:grid-cols-5">
        <Card label="Requests" value={String(t?.requests ?? 0)} sub={t !== undefined && t.failures > 0 ? `${t.failures} failed` : undefined} />
        <Card label="Success rate" value={successRate === undefined ? "—" : `${successRate.toFixed(1)}%`} />
        <Card label="Input tokens" value={formatTokens(input)} sub={`${formatTokens(t?.cacheRead ?? 0)} cached · ${formatTokens(t?.cacheWrite ?? 0)} uncached`} />
        <Card label="Output tokens" value={formatTokens(t?.output ?? 0)} />
        <Card label="Cost" value={formatCost(t?.cost ?? 0)} sub={t?.hasUncosted === true ? "some models have no price" : undefined} />
      </section>
      <section aria-label="Charts" className="grid grid-cols-1 gap-4 xl:grid-cols-2">
        <UPlotChart title="Requests and success rate" x={x} series={charts.requests} y2Label="%" y2Range={[0, 100]} />
        <UPlotChart title="Tokens" x={x} series={charts.tokens} />
        <UPlotChart title="Cost" x={x} series={charts.cost} />
      </section>
      <section aria-labelledby="usage-errors">
        <h2 id="usage-errors" className="mb-2 font-semibold">
          Errors ({errors.total})
        </h2>
        {errors.items.length === 0 ? (
          <p className="text-sm text-slate-500">No failed requests in this range.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-sm">
              <thead>
                <tr className="text-left text-xs text-slate-500">
                  <th className="py-1 pr-3">Time</th>
                  <th className="py-1 pr-3">Agent</th>
                  <th className="py-1 pr-3">Status</th>
                  <th className="py-1 pr-3">Code</th>
                  <th className="py-1">Message</th>
                </tr>
              </thead>
              <tbody>
                {errors.items.map((e) => (
                  <tr key={e.id} className="border-t border-slate-200 align-top dark:border-slate-800">
                    <td className="py-1 pr-3 whitespace-nowrap">{formatDateTime(e.ts)}</td>
                    <td className="py-1 pr-3">{e.agentId}</td>
                    <td className="py-1 pr-3">{e.status}</td>
                    <td className="py-1 pr-3">{e.code ?? ""}</td>
                    <td className="py-1 break-words">{e.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {errors.total > PAGE_SIZE && (
          <div className="mt-2 flex items-center gap-2 text-sm">
            <Button size="sm" disabled={errorPage === 0} onClick={() => setErrorPage((p) => p - 1)}>
              Newer
            </Button>
            <span>
              Page {errorPage + 1} of {Math.ceil(errors.total / PAGE_SIZE)}
            </span>
            <Button size="sm" disabled={(errorPage + 1) * PAGE_SIZE >= errors.total} onClick={() => setErrorPage((p) => p + 1)}>
              Older
            </Button>
          </div>
        )}
      </section>
    </Page>
  );
}
