/**
 * The Usage page: filters (time range, agent, model), summary cards (requests, success
 * rate, tokens cached and uncached, output, cost), charts over time (requests and success
 * rate; cached input, uncached input and output tokens; cost) and the failed-requests
 * table. Every figure comes from the server (`P/usage`, `P/usage/errors`), which prices
 * tokens at query time; a model without a price is flagged, never counted as free. Until
 * the first answer the cards and charts wait behind a spinner; a failed load says why.
 * While the page is open the cards follow `/api/events`: each `usage_totals` of the project
 * adds what the totals grew by (lib/live-read-models.ts), without asking the server again,
 * when the view is a range ending now without an agent or model filter.
 */
import { createEffect, createMemo, createSignal, For, on, onCleanup, Show } from "solid-js";
import { errorText } from "../../api/http";
import { openSse } from "../../api/sse";
import { decodeFrame, type UsageAdded } from "../../api/stream-events";
import { addUsage, liveUsageApplies, sumAdded } from "../../lib/live-read-models";
import type { UsageErrorItem, UsageReport } from "../../api/types";
import { getUsage, getUsageErrors, type UsageFilter } from "../../api/usage";
import { Page } from "../../components/layout/Page";
import { UPlotChart, type ChartSeries } from "../../components/UPlotChart";
import { Button } from "../../components/ui/Button";
import { SelectField, TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatCost, formatDateTime, formatTokens } from "../../lib/format";
import { fillBuckets, granularityFor } from "../../lib/usage-series";
import { project } from "../../state/project-store";

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

function Card(props: { label: string; value: string; sub?: string | undefined }) {
  return (
    <div class="rounded-lg border border-slate-200 p-3 dark:border-slate-800">
      <div class="text-xs text-slate-500">{props.label}</div>
      <div class="text-xl font-semibold tabular-nums">{props.value}</div>
      <Show when={props.sub}>{(sub) => <div class="text-xs text-slate-500">{sub()}</div>}</Show>
    </div>
  );
}

function dayStart(date: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  return m === null ? undefined : new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
}

export default function UsagePage() {
  const [range, setRange] = createSignal<Range>("24h");
  const [from, setFrom] = createSignal("");
  const [to, setTo] = createSignal("");
  const [agentId, setAgentId] = createSignal("");
  const [model, setModel] = createSignal("");
  const [report, setReport] = createSignal<UsageReport | undefined>(undefined);
  const [errors, setErrors] = createSignal<{ items: UsageErrorItem[]; total: number }>({ items: [], total: 0 });
  const [errorPage, setErrorPage] = createSignal(0);
  const [failure, setFailure] = createSignal<string | undefined>(undefined);
  const [tick, setTick] = createSignal(0);

  const span = createMemo(() => {
    tick(); // refreshes "now" for the relative ranges
    const now = Date.now();
    const r = range();
    if (r !== "custom") return { fromTs: now - (RANGES.find((x) => x.value === r)?.ms ?? 86_400_000), toTs: now };
    const f = dayStart(from()) ?? now - 7 * 86_400_000;
    const t = (dayStart(to()) ?? now) + 86_400_000;
    return { fromTs: f, toTs: Math.max(f + 60_000, t) };
  });

  const filter = createMemo((): UsageFilter => {
    const f: UsageFilter = { fromTs: Math.floor(span().fromTs), toTs: Math.floor(span().toTs) };
    if (agentId() !== "") f.agentId = agentId();
    const m = project.models?.models.find((x) => `${x.provider}/${x.modelId}` === model());
    if (m !== undefined) {
      f.provider = m.provider;
      f.modelId = m.modelId;
    }
    return f;
  });
  const granularity = createMemo(() => granularityFor(span().toTs - span().fromTs));

  // Usage recorded since the report was answered, from the user's event stream.
  const [added, setAdded] = createSignal<UsageAdded>({});
  const usageFeed = openSse({
    url: "/api/events",
    onFrame(frame) {
      const e = decodeFrame(frame);
      if (e?.kind !== "server" || e.event.type !== "usage_totals" || e.event.projectId !== project.projectId) return;
      const grew = e.event.added;
      setAdded((sum) => sumAdded(sum, grew));
    },
  });
  onCleanup(() => usageFeed.close());

  createEffect(
    on([() => project.projectId, filter, granularity, errorPage], ([projectId, f, g, pageNo]) => {
      if (projectId === undefined) return;
      let live = true;
      setFailure(undefined);
      Promise.all([getUsage(projectId, f, "date", g), getUsageErrors(projectId, f, PAGE_SIZE, pageNo * PAGE_SIZE)]).then(
        ([r, e]) => {
          if (!live) return;
          setAdded({});
          setReport(r);
          setErrors(e);
        },
        (e: unknown) => live && setFailure(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );

  const points = createMemo(() => {
    const r = report();
    return r === undefined ? [] : fillBuckets(r.rows, granularity(), span().fromTs, span().toTs);
  });
  const x = createMemo(() => points().map((p) => p.t / 1000));
  const charts = createMemo(() => {
    const pts = points();
    const v = (f: (r: NonNullable<(typeof pts)[number]["row"]>) => number) => pts.map((p) => (p.row === undefined ? 0 : f(p.row)));
    const requests: ChartSeries[] = [
      { label: "Requests", color: "#2563eb", values: v((r) => r.requests), bars: true },
      {
        label: "Success rate %",
        color: "#16a34a",
        values: pts.map((p) => (p.row === undefined || p.row.requests === 0 ? null : (100 * (p.row.requests - p.row.failures)) / p.row.requests)),
        scale: "y2",
        format: (n: number) => `${n.toFixed(0)}%`,
      },
    ];
    const tokens: ChartSeries[] = [
      { label: "Cached input", color: "#0891b2", values: v((r) => r.cacheRead), format: formatTokens },
      { label: "Uncached input", color: "#7c3aed", values: v((r) => r.cacheWrite), format: formatTokens },
      { label: "Output", color: "#ea580c", values: v((r) => r.output), format: formatTokens },
    ];
    const cost: ChartSeries[] = [{ label: "Cost (USD)", color: "#db2777", values: v((r) => r.cost), bars: true, format: (n: number) => formatCost(n) }];
    return { requests, tokens, cost };
  });

  const totals = () => {
    const t = report()?.totals;
    return t !== undefined && liveUsageApplies({ range: range(), agentId: agentId(), model: model() }) ? addUsage(t, added()) : t;
  };
  const input = () => {
    const t = totals();
    return t === undefined ? 0 : t.cacheRead + t.cacheWrite;
  };
  const successRate = () => {
    const t = totals();
    return t === undefined || t.requests === 0 ? undefined : (100 * (t.requests - t.failures)) / t.requests;
  };

  return (
    <Page title="Usage" actions={<Button onClick={() => setTick((n) => n + 1)}>Refresh</Button>}>
      <form aria-label="Filters" class="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Time range"
          value={range()}
          onValue={(r) => {
            setRange(r);
            setErrorPage(0);
          }}
          options={RANGES.map((r) => ({ value: r.value, label: r.label }))}
        />
        <SelectField
          label="Agent"
          value={agentId() === "" ? "__all" : agentId()}
          onValue={(a) => {
            setAgentId(a === "__all" ? "" : a);
            setErrorPage(0);
          }}
          options={[{ value: "__all", label: "All agents" }, ...project.agents.map((a) => ({ value: a.agentId, label: a.name ?? a.agentId }))]}
        />
        <SelectField
          label="Model"
          value={model() === "" ? "__all" : model()}
          onValue={(m) => {
            setModel(m === "__all" ? "" : m);
            setErrorPage(0);
          }}
          options={[{ value: "__all", label: "All models" }, ...(project.models?.models ?? []).map((m) => ({ value: `${m.provider}/${m.modelId}`, label: `${m.provider}/${m.modelId}` }))]}
        />
        <Show when={range() === "custom"}>
          <div class="flex gap-2">
            <TextField label="From" type="date" value={from()} onValue={setFrom} />
            <TextField label="To" type="date" value={to()} onValue={setTo} />
          </div>
        </Show>
      </form>
      <Show when={failure()}>{(f) => <Notice tone="error">{f()}</Notice>}</Show>
      <Show when={report() !== undefined} fallback={<Show when={failure() === undefined}><Spinner label="Loading usage" /></Show>}>
        <section aria-label="Summary" class="grid grid-cols-2 gap-3 lg:grid-cols-5">
          <Card label="Requests" value={String(totals()?.requests ?? 0)} sub={(totals()?.failures ?? 0) > 0 ? `${totals()?.failures ?? 0} failed` : undefined} />
          <Card label="Success rate" value={successRate() === undefined ? "—" : `${(successRate() ?? 0).toFixed(1)}%`} />
          <Card label="Input tokens" value={formatTokens(input())} sub={`${formatTokens(totals()?.cacheRead ?? 0)} cached · ${formatTokens(totals()?.cacheWrite ?? 0)} uncached`} />
          <Card label="Output tokens" value={formatTokens(totals()?.output ?? 0)} />
          <Card label="Cost" value={formatCost(totals()?.cost ?? 0)} sub={totals()?.hasUncosted === true ? "some models have no price" : undefined} />
        </section>
        <Show when={(totals()?.requests ?? 0) === 0}>
          <Notice>No requests in this range yet: the charts fill in as the agents work.</Notice>
        </Show>
        <section aria-label="Charts" class="grid grid-cols-1 gap-4 xl:grid-cols-2">
          <UPlotChart title="Requests and success rate" x={x()} series={charts().requests} y2Label="%" y2Range={[0, 100]} />
          <UPlotChart title="Tokens" x={x()} series={charts().tokens} />
          <UPlotChart title="Cost" x={x()} series={charts().cost} />
        </section>
      </Show>
      <section aria-labelledby="usage-errors">
        <h2 id="usage-errors" class="mb-2 font-semibold">
          Errors ({errors().total})
        </h2>
        <Show when={errors().items.length > 0} fallback={<p class="text-sm text-slate-500">No failed requests in this range.</p>}>
          <div class="overflow-x-auto">
            <table class="w-full text-sm">
              <thead>
                <tr class="text-left text-xs text-slate-500">
                  <th class="py-1 pr-3">Time</th>
                  <th class="py-1 pr-3">Agent</th>
                  <th class="py-1 pr-3">Status</th>
                  <th class="py-1 pr-3">Code</th>
                  <th class="py-1">Message</th>
                </tr>
              </thead>
              <tbody>
                <For each={errors().items}>
                  {(e) => (
                    <tr class="border-t border-slate-200 align-top dark:border-slate-800">
                      <td class="py-1 pr-3 whitespace-nowrap">{formatDateTime(e.ts)}</td>
                      <td class="py-1 pr-3">{e.agentId}</td>
                      <td class="py-1 pr-3">{e.status}</td>
                      <td class="py-1 pr-3">{e.code ?? ""}</td>
                      <td class="py-1 break-words">{e.message}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
          </div>
        </Show>
        <Show when={errors().total > PAGE_SIZE}>
          <div class="mt-2 flex items-center gap-2 text-sm">
            <Button size="sm" disabled={errorPage() === 0} onClick={() => setErrorPage((p) => p - 1)}>
              Newer
            </Button>
            <span>
              Page {errorPage() + 1} of {Math.ceil(errors().total / PAGE_SIZE)}
            </span>
            <Button size="sm" disabled={(errorPage() + 1) * PAGE_SIZE >= errors().total} onClick={() => setErrorPage((p) => p + 1)}>
              Older
            </Button>
          </div>
        </Show>
      </section>
    </Page>
  );
}
