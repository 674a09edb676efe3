/**
 * The chat route (`/chat/:id?`): the session list beside either a draft (no id) or an open
 * session; each id gets its own SessionView (and so its own controller and stream). Below
 * the `lg` breakpoint the list moves into a drawer behind a "Sessions" button, so the
 * conversation keeps the whole width of a phone.
 */
import { createSignal, Show } from "solid-js";
import { useParams } from "@solidjs/router";
import { Icon } from "../../components/ui/Icon";
import { SessionSidebar } from "../sessions/SessionSidebar";
import { DraftView } from "./DraftView";
import { SessionView } from "./SessionView";

export default function ChatPage() {
  const params = useParams<{ id?: string }>();
  const [drawer, setDrawer] = createSignal(false);
  return (
    <div class="flex h-full min-h-0">
      <aside class="hidden w-72 shrink-0 border-r border-slate-200 lg:block dark:border-slate-800">
        <SessionSidebar />
      </aside>
      <Show when={drawer()}>
        <div class="fixed inset-0 z-40 lg:hidden" role="dialog" aria-modal="true" aria-label="Sessions">
          <div class="absolute inset-0 bg-black/40" onClick={() => setDrawer(false)} />
          <aside class="absolute inset-y-0 left-0 w-72 max-w-[85%] bg-white shadow-xl dark:bg-slate-950" onKeyDown={(e) => e.key === "Escape" && setDrawer(false)}>
            <SessionSidebar onNavigate={() => setDrawer(false)} />
          </aside>
        </div>
      </Show>
      <main class="flex min-w-0 flex-1 flex-col">
        <div class="border-b border-slate-200 px-3 py-1 lg:hidden dark:border-slate-800">
          <button type="button" onClick={() => setDrawer(true)} class="rounded px-2 py-1 text-sm hover:bg-slate-100 dark:hover:bg-slate-800" aria-expanded={drawer()}>
            <Icon name="menu" class="mr-1 h-4 w-4 align-[-3px]" />
            Sessions
          </button>
        </div>
        <div class="min-h-0 flex-1">
          <Show when={params.id} keyed fallback={<DraftView />}>
            {(id) => <SessionView sessionId={id} />}
          </Show>
        </div>
      </main>
    </div>
  );
}
