/**
 * The time-travel scrubber: a slider over the session's events, step back and forward,
 * play/pause, and jumps to the previous or next request or tool call, with the cursor's event
 * named beside it. Controlled: the cursor and the playing flag belong to the caller, this only
 * reports moves (all of them through the pure cursor functions, so they stay in the list).
 *
 * Keyboard, anywhere inside the scrubber: ←/→ step (the slider does the same natively when it
 * has focus), Home/End go to the first and last event, Space plays or pauses. Space is taken
 * on keydown and its keyup swallowed, so a focused button is not also clicked by it.
 */
import { Show } from "solid-js";
import { jumpCursor, stepCursor, type ScrubEvent, type ScrubKind } from "../../lib/time-travel/cursor";

export interface ScrubberProps {
  events: readonly ScrubEvent[];
  index: number;
  playing: boolean;
  onIndex(index: number): void;
  onPlaying(playing: boolean): void;
}

const KIND_NAME: Record<Exclude<ScrubKind, "event">, string> = { request: "request", tool_call: "tool call" };

export function Scrubber(props: ScrubberProps) {
  const count = () => props.events.length;
  const current = () => props.events[props.index];
  const move = (delta: number) => props.onIndex(stepCursor(props.index, delta, count()));
  const jumpTarget = (kind: Exclude<ScrubKind, "event">, direction: 1 | -1) => jumpCursor(props.events, props.index, [kind], direction);
  const jump = (kind: Exclude<ScrubKind, "event">, direction: 1 | -1) => {
    const to = jumpTarget(kind, direction);
    if (to !== undefined) props.onIndex(to);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const onSlider = e.target instanceof HTMLInputElement && e.target.type === "range";
    if (e.key === " ") {
      e.preventDefault();
      props.onPlaying(!props.playing);
    } else if (!onSlider && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      e.preventDefault();
      move(e.key === "ArrowLeft" ? -1 : 1);
    } else if (!onSlider && (e.key === "Home" || e.key === "End")) {
      e.preventDefault();
      props.onIndex(e.key === "Home" ? 0 : count() - 1);
    }
  };

  const jumpButton = (kind: Exclude<ScrubKind, "event">, direction: 1 | -1, glyph: string) => {
    const name = `${direction === 1 ? "Next" : "Previous"} ${KIND_NAME[kind]}`;
    return (
      <button
        type="button"
        aria-label={name}
        title={name}
        disabled={jumpTarget(kind, direction) === undefined}
        onClick={() => jump(kind, direction)}
        class="rounded-md border border-slate-300 px-2 py-1 text-xs whitespace-nowrap hover:bg-slate-50 disabled:opacity-40 dark:border-slate-600 dark:hover:bg-slate-800"
      >
        {direction === -1 ? `${glyph} ` : ""}
        {kind === "request" ? "req" : "tool"}
        {direction === 1 ? ` ${glyph}` : ""}
      </button>
    );
  };

  return (
    <div role="group" aria-label="Scrubber" tabIndex={0} onKeyDown={onKeyDown} onKeyUp={(e) => e.key === " " && e.preventDefault()} class="flex min-w-0 flex-col gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-800">
      <input
        type="range"
        aria-label="Event"
        min={1}
        max={Math.max(1, count())}
        step={1}
        value={props.index + 1}
        aria-valuetext={current() === undefined ? "no events" : `event ${props.index + 1} of ${count()}: ${current()!.label}`}
        disabled={count() === 0}
        onInput={(e) => props.onIndex(stepCursor(Number(e.currentTarget.value) - 1, 0, count()))}
        class="w-full accent-blue-600"
      />
      <div class="flex flex-wrap items-center gap-1">
        {jumpButton("request", -1, "⇤")}
        {jumpButton("tool_call", -1, "⇤")}
        <button type="button" aria-label="Step back" title="Step back (←)" disabled={props.index <= 0} onClick={() => move(-1)} class="rounded-md border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 disabled:opacity-40 dark:border-slate-600 dark:hover:bg-slate-800">
          ◀
        </button>
        <button
          type="button"
          aria-label={props.playing ? "Pause" : "Play"}
          title={props.playing ? "Pause (space)" : "Play (space)"}
          aria-pressed={props.playing}
          disabled={count() === 0}
          onClick={() => props.onPlaying(!props.playing)}
          class="rounded-md bg-blue-600 px-3 py-1 text-xs font-medium text-white hover:bg-blue-700 disabled:opacity-40"
        >
          {props.playing ? "❚❚ Pause" : "▶ Play"}
        </button>
        <button type="button" aria-label="Step forward" title="Step forward (→)" disabled={props.index >= count() - 1} onClick={() => move(1)} class="rounded-md border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 disabled:opacity-40 dark:border-slate-600 dark:hover:bg-slate-800">
          ▶
        </button>
        {jumpButton("tool_call", 1, "⇥")}
        {jumpButton("request", 1, "⇥")}
        <span class="hidden text-xs text-slate-500 sm:inline">←/→ step · space plays</span>
      </div>
      <Show when={current()} fallback={<p class="text-xs text-slate-500">This session has no events.</p>}>
        {(e) => (
          <p aria-label="Cursor" aria-live="polite" class="flex min-w-0 flex-wrap items-baseline gap-x-2 text-xs">
            <span class="font-semibold tabular-nums">
              Event {e().n} of {count()}
            </span>{" "}
            <span class="font-mono text-slate-500">{e().position}</span>{" "}
            <span class="min-w-0 truncate font-mono">{e().label}</span>
          </p>
        )}
      </Show>
    </div>
  );
}
