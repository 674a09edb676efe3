/**
 * The chat route (`/chat/:id?`): the session list beside either a draft (no id) or an open
 * session. Below the `lg` breakpoint the list moves into a drawer behind a "Sessions"
 * button, so the conversation keeps the whole width of a phone.
 */
import { useState } from "react";
import { useParams } from "react-router";
import { SessionSidebar } from "../sessions/SessionSidebar";
import { DraftView } from "./DraftView";
import { SessionView } from "./SessionView";
import { Icon } from "../../components/ui/Icon";

export default function ChatPage() {
  const { id } = useParams();
  const [drawer, setDrawer] = useState(false);
  return (
    <div className="flex h-full min-h-0">
      <aside className="hidden w-72 shrink-0 border-r border-slate-200 lg:block dark:border-slate-800">
        <SessionSidebar />
      </aside>
      {drawer && (
        <div className="fixed inset-0 z-40 lg:hidden" role="dialog" aria-modal="true" aria-label="Sessions">
          <div className="absolute inset-0 bg-black/40" onClick={() => setDrawer(false)} />
          <aside className="absolute inset-y-0 left-0 w-72 max-w-[85%] bg-white shadow-xl dark:bg-slate-950" onKeyDown={(e) => e.key === "Escape" && setDrawer(false)}>
            <SessionSidebar onNavigate={() => setDrawer(false)} />
          </aside>
        </div>
      )}
      <main className="flex min-w-0 flex-1 flex-col">
        <div className="border-b border-slate-200 px-3 py-1 lg:hidden dark:border-slate-800">
          <button type="button" onClick={() => setDrawer(true)} className="rounded px-2 py-1 text-sm hover:bg-slate-100 dark:hover:bg-slate-800" aria-expanded={drawer}>
            <Icon name="menu" className="mr-1 h-4 w-4 align-[-3px]" />
            Sessions
          </button>
        </div>
        <div className="min-h-0 flex-1">{id === undefined ? <DraftView /> : <SessionView key={id} sessionId={id} />}</div>
      </main>
    </div>
  );
}
