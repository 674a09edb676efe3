/**
 * The `[background_task_done]` notice of a child started with `run_in_background`, in the
 * same shape as a background command's (commands/process-table.ts, SPEC §3): the fields
 * `kind: subagent`, `id`, `status`, `detail`, then the task's label (≤ 120 chars, one line)
 * and the tail of its final answer (≤ 4000 chars). The Environment hands it to the engine
 * at the parent's next turn boundary (`drainNotices`); a killed child sends none.
 */
import { formatFields, wrapMarker } from "@penguin/omnimessage";
import { NOTICE_LABEL_CHARS, NOTICE_TAIL_CHARS } from "../environment/commands/process-table.js";
import type { TaskReport } from "./task-report.js";

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(-(max - 1))}`;
}

export function subagentNotice(subagentId: string, report: TaskReport): string {
  const fields = formatFields({ kind: "subagent", id: subagentId, status: report.status, detail: report.detail });
  const answer = report.answer === undefined || report.answer === "" ? "[no output]" : tail(report.answer, NOTICE_TAIL_CHARS);
  return wrapMarker("background_task_done", [fields, clip(report.label, NOTICE_LABEL_CHARS), answer].join("\n"));
}
