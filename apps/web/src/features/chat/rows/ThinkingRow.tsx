/**
 * The model's reasoning, collapsed by default into one line (open while it streams, so the
 * user sees it is thinking). A disclosure button with aria-expanded toggles it.
 */
import { memo, useState } from "react";
import type { ThinkingItem } from "../../../lib/stream/view-model";

export const ThinkingRow = memo(function ThinkingRow({ item }: { item: ThinkingItem }) {
  const [open, setOpen] = useState(false);
  const shown = open || item.streaming;
  const firstLine = item.text.trim().split("\n")[0] ?? "";
  return (
    <div className="text-sm text-slate-600 dark:text-slate-400">
      <button type="button" aria-expanded={shown} onClick={() => setOpen(!open)} className="flex max-w-full items-center gap-1 rounded px-1 text-left text-xs hover:bg-slate-100 dark:hover:bg-slate-800">
        <span aria-hidden="true">{shown ? "▾" : "▸"}</span>
        <span className="font-medium">{item.streaming ? "Thinking…" : "Thought"}</span>
        {!shown && <span className="truncate italic">{firstLine}</span>}
      </button>
      {shown && (
        <div className="mt-1 border-l-2 border-slate-200 pl-3 whitespace-pre-wrap italic dark:border-slate-700">
          {item.dataUrl !== undefined ? <img src={item.dataUrl} alt="Inline thinking data" className="max-h-64" /> : item.text}
        </div>
      )}
    </div>
  );
});
