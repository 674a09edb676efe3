/**
 * Time travel on the Traces page: every event of the chosen session (all its rotated files,
 * read page by page from the trace browser), the scrubber over them, the state panel at the
 * cursor with its diff to the previous step, the workspace's files there (FilesPanel.tsx: what
 * the event changed, a diff of each, "Restore files to here"), and "Fork from here" (the
 * server starts the fork in a new workspace holding the files as of the event; the fork's
 * chat header names it).
 *
 * The cursor is a trace position owned by the page (so the timeline can highlight it and a
 * click there can move it); when the page has none, the cursor sits on the last event. States
 * come through the coalescing loader (lib/time-travel/state-loader.ts): fetched only when the
 * cursor lands somewhere, cached per position, one request in flight even while playing.
 * Forking posts the cursor's position, puts the new session in the sidebar's list and opens
 * its chat, where the conversation carries on from that event.
 */
import { createEffect, createMemo, createSignal, on, onCleanup, Show, type JSX } from "solid-js";
import { useNavigate } from "@solidjs/router";
import type { EventOutline } from "../../api/types";
import { errorText } from "../../api/http";
import { forkSessionAt, getSessionState, sessionStateOf, type SessionState } from "../../api/time-travel";
import { getTraceOutline } from "../../api/traces";
import { Button } from "../../components/ui/Button";
import { Icon } from "../../components/ui/Icon";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { indexOfPosition, playTick, scrubEventsOf, type ScrubEvent } from "../../lib/time-travel/cursor";
import { createStateLoader } from "../../lib/time-travel/state-loader";
import { upsertSession } from "../../state/session-list-store";
import { FilesPanel } from "./FilesPanel";
import { Scrubber } from "./Scrubber";
import { StatePanel } from "./StatePanel";

/** How long play rests on each event. */
export const PLAY_STEP_MS = 400;
const PAGE = 5000;

/** Every event of every file of a session, in order, by its outline (not its whole envelope). */
async function loadSessionEvents(projectId: string, agentId: string, sessionId: string, fileIndexes: readonly number[]): Promise<ScrubEvent[]> {
  const files = await Promise.all(
    fileIndexes.map(async (fileIndex) => {
      const lines: { line: number; message: EventOutline }[] = [];
      let offset: number | null = 0;
      while (offset !== null) {
        const page = await getTraceOutline(projectId, agentId, sessionId, fileIndex, offset, PAGE);
        lines.push(...page.lines);
        offset = page.nextOffset !== null && page.nextOffset > offset ? page.nextOffset : null;
      }
      return { fileIndex, lines };
    }),
  );
  return scrubEventsOf(files);
}

/** Before the first event there is nothing: the first step's diff marks all it has as added. */
const NOTHING: SessionState = sessionStateOf({});

export interface TimeTravelProps {
  projectId: string;
  agentId: string;
  sessionId: string;
  fileIndexes: readonly number[];
  /** The cursor's position (`NNN:LLLLLL`); undefined: the last event. */
  position: string | undefined;
  onPosition(event: ScrubEvent | undefined): void;
  /** The timeline, shown beside the state panel. */
  children?: JSX.Element;
}

export function TimeTravel(props: TimeTravelProps) {
  const navigate = useNavigate();
  const [events, setEvents] = createSignal<ScrubEvent[] | undefined>(undefined);
  const [loadError, setLoadError] = createSignal<string | undefined>(undefined);
  const [playing, setPlaying] = createSignal(false);
  const [version, setVersion] = createSignal(0);
  const [forking, setForking] = createSignal(false);
  const [forkError, setForkError] = createSignal<string | undefined>(undefined);
  const loader = createStateLoader<SessionState>({
    fetch: (position) => getSessionState(props.sessionId, position),
    onChange: () => setVersion((v) => v + 1),
    describeError: errorText,
  });

  createEffect(
    on([() => props.projectId, () => props.agentId, () => props.sessionId, () => props.fileIndexes.join(",")], ([projectId, agentId, sessionId, files]) => {
      let live = true;
      loader.reset();
      setPlaying(false);
      setEvents(undefined);
      setLoadError(undefined);
      setForkError(undefined);
      loadSessionEvents(projectId, agentId, sessionId, files === "" ? [] : files.split(",").map(Number)).then(
        (list) => live && setEvents(list),
        (e: unknown) => live && setLoadError(errorText(e)),
      );
      onCleanup(() => (live = false));
    }),
  );

  const index = createMemo(() => {
    const list = events() ?? [];
    const at = props.position === undefined ? undefined : indexOfPosition(list, props.position);
    return at ?? Math.max(0, list.length - 1);
  });
  const current = () => events()?.[index()];
  const previousEvent = () => (index() > 0 ? events()?.[index() - 1] : undefined);

  // Tell the page where the cursor is (the timeline highlights it).
  createEffect(on(current, (e) => props.onPosition(e)));

  // Ask for the cursor's state, then the previous step's (for the diff).
  createEffect(() => {
    const here = current();
    if (here === undefined) return;
    const before = previousEvent();
    loader.want(before === undefined ? [here.position] : [here.position, before.position]);
  });

  const setIndex = (i: number) => props.onPosition(events()?.[i]);

  // Play: a timer steps the cursor; it stops on the last event.
  createEffect(() => {
    if (!playing()) return;
    const timer = setInterval(() => {
      const list = events() ?? [];
      const next = playTick(index(), list.length);
      if (next === undefined) setPlaying(false);
      else setIndex(next);
    }, PLAY_STEP_MS);
    onCleanup(() => clearInterval(timer));
  });

  // What the panel shows: the cursor's state, or the last one shown while it loads.
  let lastShown: { state: SessionState; previous: SessionState | undefined } | undefined;
  const shown = createMemo(() => {
    version();
    const here = current();
    if (here === undefined) return undefined;
    const state = loader.get(here.position);
    const before = previousEvent();
    const previous = before === undefined ? NOTHING : loader.get(before.position);
    if (state !== undefined) lastShown = { state, previous };
    return state === undefined ? lastShown : { state, previous };
  });
  const stateLoading = () => {
    version();
    const here = current();
    return here !== undefined && loader.get(here.position) === undefined && loader.error(here.position) === undefined;
  };
  const stateError = () => {
    version();
    const here = current();
    return here === undefined ? undefined : loader.error(here.position);
  };

  const fork = async () => {
    const here = current();
    if (here === undefined) return;
    setPlaying(false);
    setForking(true);
    setForkError(undefined);
    try {
      const s = await forkSessionAt(props.sessionId, here.position);
      upsertSession(s);
      navigate(`/chat/${encodeURIComponent(s.id)}`);
    } catch (e) {
      setForkError(errorText(e));
    } finally {
      setForking(false);
    }
  };

  return (
    <section aria-labelledby="time-travel" class="flex min-w-0 flex-col gap-2">
      <div class="flex flex-wrap items-center gap-2">
        <h2 id="time-travel" class="flex-1 font-semibold">
          Time travel
        </h2>
        <Button size="sm" variant="primary" disabled={current() === undefined || forking()} onClick={() => void fork()}>
          <Icon name="fork" class="h-3 w-3" />
          {forking() ? "Forking…" : "Fork from here"}
        </Button>
      </div>
      <Show when={forkError()}>{(e) => <Notice tone="error">Could not fork: {e()}</Notice>}</Show>
      <Show when={loadError()}>{(e) => <Notice tone="error">The session's events could not be loaded: {e()}</Notice>}</Show>
      <Show when={events() === undefined && loadError() === undefined}>
        <Spinner label="Loading the session's events" />
      </Show>
      <Show when={events()}>
        {(list) => <Scrubber events={list()} index={index()} playing={playing()} onIndex={setIndex} onPlaying={setPlaying} />}
      </Show>
      <Show when={current()}>{(here) => <FilesPanel sessionId={props.sessionId} position={here().position} eventNumber={index() + 1} previous={previousEvent()?.position} />}</Show>
      <div class="grid min-w-0 grid-cols-1 gap-3 lg:grid-cols-2">
        <div class="min-w-0">{props.children}</div>
        <Show when={events() !== undefined}>
          <div class="order-first min-w-0 lg:order-none">
            <StatePanel
              state={shown()?.state}
              previous={shown()?.previous}
              loading={stateLoading()}
              error={stateError()}
              onRetry={() => {
                const here = current();
                if (here !== undefined) loader.retry(here.position);
              }}
            />
          </div>
        </Show>
      </div>
    </section>
  );
}
