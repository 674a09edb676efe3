/**
 * `penguin trace show SID`: a readable account of one session from its trace alone:
 * the header (model, workspace, files, time span), then each task with its requests
 * (status, attempt, retry wait, tokens), the tool calls each request made (approval and
 * outcome; `--verbose` adds the collapsed output), steering and compactions, then totals
 * (requests, retries, tool calls, tokens, cost, compactions).
 */
import { UsageError } from "../cli-error.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { sanitizeForTerminal } from "../io/sanitize.js";
import { collapseLines, moreLinesMarker } from "../render/collapse.js";
import { costUsd } from "@penguin/models";
import { compactNumber, duration, localTime, shorten, usd } from "../render/format.js";
import { Output } from "../render/output.js";
import { toolCallLine } from "../render/tool-line.js";
import { loadSessionTrace, pathsOf, pricingResolver, type AgentSelector } from "../traces/load-session.js";
import { summarizeTrace, type RequestSummary, type ToolCallSummary } from "@penguin/core";

export interface TraceShowFlags extends AgentSelector {
  verbose?: boolean;
}

function tokens(u: { cache_read: number; cache_write: number; output: number }): string {
  return `${compactNumber(u.cache_read + u.cache_write)} in (${compactNumber(u.cache_read)} cached) / ${compactNumber(u.output)} out`;
}

export async function traceShow(sessionId: string, flags: TraceShowFlags): Promise<ExitCode> {
  const paths = await pathsOf(flags);
  const loaded = await loadSessionTrace(paths, sessionId);
  if (loaded === undefined) {
    throw new UsageError(`no session ${sessionId} in ${paths.tracesDir} (penguin sessions lists the sessions of this agent)`);
  }
  const summary = summarizeTrace(loaded.messages);
  const out = Output.of(process.stdout);
  const c = out.colors;
  const meta = summary.meta;
  const pricing = meta === undefined ? undefined : (await pricingResolver(paths))(meta.provider, meta.model_id);

  const field = (name: string, value: string): void => out.line(`${c.bold(name.padEnd(10))} ${value}`);
  field("session", sessionId);
  if (meta !== undefined) {
    const window = meta.model_context_window === "unknown" ? "unknown" : compactNumber(meta.model_context_window);
    field("model", `${meta.provider}/${meta.model_id} · window ${window}`);
    field("workspace", meta.workspace);
  }
  field("trace", `${loaded.files.length} file${loaded.files.length === 1 ? "" : "s"}: ${loaded.files.join(", ")}`);
  if (loaded.skipped > 0) field("skipped", `${loaded.skipped} unreadable line(s) (torn tail or bad JSON)`);
  if (summary.startedAt !== undefined && summary.endedAt !== undefined) {
    const span = new Date(summary.endedAt).getTime() - new Date(summary.startedAt).getTime();
    field("time", `${localTime(summary.startedAt)} → ${localTime(summary.endedAt)} (${duration(Math.max(0, span))})`);
  }
  field("status", summary.status);

  summary.tasks.forEach((task, i) => {
    out.line("");
    const prompt = task.prompt === undefined ? c.dim("(continued work, no new prompt)") : `"${sanitizeForTerminal(shorten(task.prompt, 100))}"`;
    out.line(`${c.bold(`task ${i + 1}`)} · ${task.status} · ${prompt}`);
    task.requests.forEach((r, j) => {
      out.line(`  request ${j + 1} · ${requestText(r)}`);
      for (const call of r.toolCalls) {
        out.line(`    ${callText(call)}`);
        if (flags.verbose === true && call.output !== undefined) {
          for (const l of collapseLines(sanitizeForTerminal(call.output))) out.line(`      ${l.kind === "line" ? l.text : c.dim(moreLinesMarker(l.hidden))}`);
        }
      }
    });
    for (const s of task.steering) out.line(c.dim(`  steering: ${shorten(sanitizeForTerminal(s), 100)}`));
    for (const k of task.compactions) {
      out.line(`  compaction · ${k.reason}/${k.mode} · ${compactNumber(k.contextTokens)} tokens · ${k.status}${k.error !== undefined ? `: ${k.error}` : ""}`);
    }
    if (task.abort !== undefined) out.line(`  ${task.status === "aborted" ? c.yellow("aborted") : c.red("stopped")}: ${sanitizeForTerminal(task.abort)}`);
  });

  out.line("");
  const totals = [
    `${summary.tasks.length} task${summary.tasks.length === 1 ? "" : "s"}`,
    `${summary.requests} request${summary.requests === 1 ? "" : "s"} (${summary.retries} retried)`,
    `${summary.toolCalls} tool call${summary.toolCalls === 1 ? "" : "s"}`,
    tokens(summary.usage),
    usd(costUsd(summary.usage, pricing)),
    `${summary.compactions} compaction${summary.compactions === 1 ? "" : "s"}`,
  ];
  out.line(`${c.bold("totals")}     ${totals.join(" · ")}`);
  return EXIT.done;
}

function requestText(r: RequestSummary): string {
  const parts: string[] = [r.status === "open" ? "no end recorded" : r.status];
  if (r.attempt !== undefined) parts[0] += ` (attempt ${r.attempt})`;
  if (r.usage !== undefined) parts.push(tokens(r.usage));
  if (r.error !== undefined) parts.push(sanitizeForTerminal(shorten(r.error, 120)));
  if (r.retryInMs !== undefined) parts.push(`retry in ${duration(r.retryInMs)}`);
  return parts.join(" · ");
}

function callText(call: ToolCallSummary): string {
  const { tag, name, summary } = toolCallLine(call.name, call.arguments, call.id);
  const decision = call.decision === undefined ? "" : ` · ${call.decision === "allow" ? "allowed" : call.decision === "deny" ? "denied" : "forbidden"}`;
  const outcome = call.outputStatus === undefined ? " · no output" : ` · ${call.outputStatus}`;
  return `${tag} ${name} <- ${sanitizeForTerminal(summary)}${decision}${outcome}`;
}
