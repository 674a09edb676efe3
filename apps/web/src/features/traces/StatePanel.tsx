/**
 * The time-travel state panel: the session's decoded state after the cursor's event, section
 * by section (lib/time-travel/state-diff.ts lays it out), each row marked against the previous
 * step: added (+, green), removed (−, red, struck through), changed (~, amber, with the value
 * before). The mark is also written out for screen readers, so it is not colour alone.
 *
 * A long run of unchanged rows at the start of a section (an old context) is folded behind a
 * "Show N earlier unchanged" button, so the step's changes stay in view.
 *
 * It shows one of four things: nothing chosen yet, loading, an error (with Retry), or the
 * state. While the next state loads, the last one stays on screen, dimmed, so scrubbing does
 * not flash an empty panel.
 */
import { createMemo, createSignal, For, Index, Match, Show, Switch } from "solid-js";
import { recordUrl, type SessionState } from "../../api/time-travel";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatBytes } from "../../lib/format";
import { changeCount, stateSections, type Change, type StateRow } from "../../lib/time-travel/state-diff";

export interface StatePanelProps {
  /** The state at the cursor, or the last one shown while it loads. */
  state: SessionState | undefined;
  /** The previous step's state (undefined: not known, so nothing is marked). */
  previous: SessionState | undefined;
  /** True while the state at the cursor is being fetched. */
  loading: boolean;
  error: string | undefined;
  onRetry(): void;
}

const MARK: Record<Change, { glyph: string; spoken: string; class: string }> = {
  added: { glyph: "+", spoken: "added", class: "bg-green-50 text-green-900 dark:bg-green-950 dark:text-green-100" },
  removed: { glyph: "−", spoken: "removed", class: "bg-red-50 text-red-900 line-through dark:bg-red-950 dark:text-red-100" },
  changed: { glyph: "~", spoken: "changed", class: "bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100" },
  same: { glyph: "", spoken: "", class: "" },
};

/** Unchanged rows at the start of a section beyond this many are folded behind a button. */
export const UNCHANGED_SHOWN = 6;

function SectionRows(props: { rows: StateRow[]; sessionId: string }) {
  const [unfolded, setUnfolded] = createSignal(false);
  // Rows before the last UNCHANGED_SHOWN of the leading unchanged run are folded (a long
  // context's old messages), so what changed stays in view.
  const folded = createMemo(() => {
    if (unfolded()) return 0;
    let lead = 0;
    while (lead < props.rows.length && props.rows[lead]!.change === "same") lead += 1;
    return Math.max(0, lead - UNCHANGED_SHOWN);
  });
  return (
    <ul class="flex flex-col gap-px font-mono text-xs">
      <Show when={folded() > 0}>
        <li>
          <button type="button" onClick={() => setUnfolded(true)} class="px-1 text-slate-500 underline hover:text-blue-600">
            Show {folded()} earlier unchanged
          </button>
        </li>
      </Show>
      <For each={props.rows.slice(folded())}>
        {(row) => (
          <li data-change={row.change} class={`flex min-w-0 items-start gap-1 rounded px-1 ${MARK[row.change].class}`}>
            <span aria-hidden="true" class="w-3 shrink-0 text-center font-bold">
              {MARK[row.change].glyph}
            </span>
            <Show when={row.change !== "same"}>
              <span class="sr-only">{MARK[row.change].spoken}: </span>
            </Show>
            <span class="min-w-0 break-words">
              {row.label}
              <Show when={row.before}>{(b) => <span class="text-slate-500 no-underline"> (was {b()})</span>}</Show>
              <Show when={row.cut}>
                {(cut) => (
                  <>
                    {" "}
                    <a href={recordUrl(props.sessionId, cut().at)} target="_blank" rel="noopener" class="text-blue-700 underline dark:text-blue-300">
                      … {formatBytes(cut().bytes)} cut, load the whole record
                    </a>
                  </>
                )}
              </Show>
            </span>
          </li>
        )}
      </For>
    </ul>
  );
}

export function StatePanel(props: StatePanelProps) {
  const sections = createMemo(() => (props.state === undefined ? [] : stateSections(props.state, props.previous)));
  const changes = createMemo(() => changeCount(sections()));

  return (
    <section aria-label="State at the cursor" aria-busy={props.loading} class="flex min-w-0 flex-col gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-800">
      <Switch>
        <Match when={props.error !== undefined}>
          <Notice tone="error">
            The state could not be loaded: {props.error}{" "}
            <Button size="sm" onClick={() => props.onRetry()}>
              Retry
            </Button>
          </Notice>
        </Match>
        <Match when={props.state === undefined && props.loading}>
          <Spinner label="Loading the state" />
        </Match>
        <Match when={props.state === undefined}>
          <p class="text-sm text-slate-500">Move the cursor to an event to see the session's state there.</p>
        </Match>
      </Switch>
      <Show when={props.error === undefined ? props.state : undefined}>
        {(s) => (
          <div class={`flex min-w-0 flex-col gap-2 ${props.loading ? "opacity-60" : ""}`}>
            <header class="flex flex-wrap items-baseline gap-x-2 text-sm">
              <h3 class="font-semibold">
                State after event {s().at.n} of {s().records}
              </h3>
              <span class="font-mono text-xs text-slate-500">
                {s().at.position} · {s().at.record}
              </span>
              <span aria-label="Changes since the previous step" class="text-xs text-slate-600 dark:text-slate-400">
                {props.previous === undefined ? "" : changes() === 0 ? "no change since the previous step" : `${changes()} change${changes() === 1 ? "" : "s"} since the previous step`}
              </span>
              <Show when={props.loading}>
                <Spinner label="Loading the state" />
              </Show>
            </header>
            {/* By index: the sections are always the same, in the same order, so a section's fold survives a step. */}
            <Index each={sections()}>
              {(section) => (
                <section aria-label={section().title} class="min-w-0">
                  <h4 class="text-xs font-semibold tracking-wide text-slate-500 uppercase">{section().title}</h4>
                  <Show when={section().rows.length > 0} fallback={<p class="text-xs text-slate-500">{section().empty}</p>}>
                    <SectionRows rows={section().rows} sessionId={s().sessionId} />
                  </Show>
                </section>
              )}
            </Index>
          </div>
        )}
      </Show>
    </section>
  );
}
