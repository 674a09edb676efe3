/**
 * What the person sent: text (shown as written, not as markdown), image thumbnails, file
 * chips, skill chips; steering notes and scheduled prompts are labelled as such.
 */
import { memo } from "react";
import type { UserItem } from "../../../lib/stream/view-model";
import { Icon } from "../../../components/ui/Icon";

export const UserRow = memo(function UserRow({ item }: { item: UserItem }) {
  const label = item.variant === "steer" ? "Steering" : item.variant === "scheduled" ? "Scheduled task" : item.sender === "parent_agent" ? "From the parent agent" : undefined;
  return (
    <div className="flex justify-end">
      <div className="max-w-[85%] rounded-2xl rounded-br-sm bg-blue-50 px-3 py-2 text-sm dark:bg-blue-950">
        {label !== undefined && <div className="mb-1 text-xs font-medium text-blue-700 dark:text-blue-300">{label}</div>}
        {item.skills.length > 0 && (
          <div className="mb-1 flex flex-wrap gap-1">
            {item.skills.map((s) => (
              <span key={s} className="rounded-full bg-purple-100 px-2 py-0.5 text-xs text-purple-800 dark:bg-purple-900 dark:text-purple-100">
                skill: {s}
              </span>
            ))}
          </div>
        )}
        {item.text !== "" && <p className="whitespace-pre-wrap break-words">{item.text}</p>}
        {item.images.length > 0 && (
          <div className="mt-1 flex flex-wrap gap-1">
            {item.images.map((src, i) => (
              <a key={i} href={src} target="_blank" rel="noreferrer">
                <img src={src} alt={`Attached image ${i + 1}`} className="h-24 max-w-48 rounded object-cover" />
              </a>
            ))}
          </div>
        )}
        {item.attachments.length > 0 && (
          <ul className="mt-1 flex flex-wrap gap-1">
            {item.attachments.map((a) => (
              <li key={a.path} className="rounded bg-white/70 px-2 py-0.5 text-xs dark:bg-slate-900/60" title={a.path}>
                <Icon name={a.kind === "image" ? "image" : "file"} className="mr-1 h-3.5 w-3.5 align-[-2px]" />
                {a.path.split("/").pop()}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
});
