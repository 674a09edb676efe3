/** The model's text, rendered as markdown; a caret shows while it is still streaming. */
import { memo } from "react";
import { Markdown } from "../../../components/Markdown";
import type { AssistantTextItem } from "../../../lib/stream/view-model";

export const AssistantRow = memo(function AssistantRow({ item }: { item: AssistantTextItem }) {
  return (
    <div className="text-sm" aria-busy={item.streaming}>
      <Markdown text={item.text} />
      {item.streaming && <span aria-hidden="true" className="ml-0.5 inline-block h-4 w-1.5 animate-pulse bg-slate-400 align-text-bottom" />}
      {item.stopReason !== undefined && item.stopReason !== "completed" && <p className="mt-1 text-xs text-amber-700 dark:text-amber-400">(ended: {item.stopReason})</p>}
    </div>
  );
});
