/**
 * A small Solid wrapper around uPlot (time series, ~23 KB gzip, loaded only by the pages
 * that chart): builds the plot once per series layout, feeds new data with `setData`, and
 * follows its container's width (ResizeObserver), so charts fit a 390 px phone. Axis and
 * grid colours follow the theme. The chart has an accessible name; the same figures are
 * given as text (cards, tables) on every page that uses it.
 */
import { createEffect, on, onCleanup } from "solid-js";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface ChartSeries {
  label: string;
  color: string;
  values: (number | null)[];
  /** Draw as bars instead of a line. */
  bars?: boolean;
  /** Which y scale: the left (default) or the right axis. */
  scale?: "y" | "y2";
  format?: (v: number) => string;
}

export interface UPlotChartProps {
  title: string;
  /** Seconds since epoch (uPlot's time axis), or plain numbers when `time` is false. */
  x: number[];
  series: ChartSeries[];
  height?: number;
  time?: boolean;
  y2Label?: string;
  /** A fixed range for the right axis (e.g. [0, 100] for a percentage). */
  y2Range?: [number, number];
  xLabel?: string;
}

function isDark(): boolean {
  return document.documentElement.classList.contains("dark");
}

/** Half a step of room at each end, so the first and last bars are drawn whole. */
function padded(_u: uPlot, min: number | null, max: number | null): [number | null, number | null] {
  if (min === null || max === null) return [min, max];
  const pad = max > min ? (max - min) * 0.02 : 1;
  return [min - pad, max + pad];
}

export function UPlotChart(props: UPlotChartProps) {
  let box!: HTMLDivElement;
  let plot: uPlot | undefined;
  const height = () => props.height ?? 220;
  const time = () => props.time ?? true;
  const layout = () => `${time()}|${props.y2Range?.join("-") ?? ""}|${height()}|${props.series.map((s) => `${s.label}:${s.bars === true}:${s.scale ?? "y"}`).join(",")}`;
  const data = (): uPlot.AlignedData => [props.x, ...props.series.map((s) => s.values)];

  // Rebuilt only when the layout changes (the key covers the series, `time` and the height);
  // data updates go through setData below.
  createEffect(
    on(layout, () => {
      const el = box;
      const { series, x, y2Label, y2Range, xLabel } = props;
      const h = height();
      const dark = isDark();
      const axisStroke = dark ? "#cbd5e1" : "#475569";
      const grid = { stroke: dark ? "#1e293b" : "#e2e8f0", width: 1 };
      const hasY2 = series.some((s) => s.scale === "y2");
      const opts: uPlot.Options = {
        width: Math.max(200, el.clientWidth),
        height: h,
        scales: {
          x: { time: time(), range: padded },
          y: { auto: true, range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
          ...(hasY2 ? { y2: y2Range !== undefined ? { auto: false, range: y2Range } : { auto: true } } : {}),
        },
        axes: [
          { stroke: axisStroke, grid, ...(xLabel !== undefined ? { label: xLabel } : {}) },
          { stroke: axisStroke, grid, size: 60 },
          ...(hasY2 ? [{ scale: "y2", side: 1, stroke: axisStroke, grid: { show: false }, size: 60, ...(y2Label !== undefined ? { label: y2Label } : {}) }] : []),
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            scale: s.scale ?? "y",
            ...(s.bars === true ? { fill: `${s.color}66`, paths: uPlot.paths.bars?.({ size: [0.7, 40] }), points: { show: false } } : { points: { show: x.length < 60 } }),
            ...(s.format !== undefined ? { value: (_u: uPlot, v: number | null) => (v === null ? "—" : (s.format?.(v) ?? String(v))) } : {}),
          })),
        ],
        legend: { live: true },
      };
      const u = new uPlot(opts, data(), el);
      plot = u;
      const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: h }));
      ro.observe(el);
      onCleanup(() => {
        ro.disconnect();
        u.destroy();
        plot = undefined;
      });
    }),
  );

  createEffect(
    on(data, (d) => plot?.setData(d), { defer: true }),
  );

  return (
    <figure class="min-w-0">
      <figcaption class="mb-1 text-sm font-medium">{props.title}</figcaption>
      <div ref={box} role="img" aria-label={props.title} class="w-full" />
    </figure>
  );
}
