/**
 * The agent's Tools tab: the builtin tools a session of this agent gets, as a table (name,
 * read or read-write, timeout, what it does, when it is offered), then the MCP servers: the
 * configured ones as the server reads them (secrets as key names only) and the form that
 * adds one and tests its connection (McpPanel).
 */
import { useEffect, useState } from "react";
import { getAgentTools } from "../../api/agents";
import { errorText } from "../../api/http";
import type { AgentTools } from "../../api/types";
import { Notice } from "../../components/ui/Notice";
import { Spinner } from "../../components/ui/Spinner";
import { formatDuration } from "../../lib/format";
import { McpPanel } from "./McpPanel";

export function ToolsPanel({ projectId, agentId, yaml, savedYaml, onYaml, readOnly }: { projectId: string; agentId: string; yaml: string; savedYaml: string; onYaml(v: string): void; readOnly: boolean }) {
  const [tools, setTools] = useState<AgentTools | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    setError(undefined);
    getAgentTools(projectId, agentId).then(
      (t) => live && setTools(t),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, agentId, savedYaml]);

  return (
    <div className="flex flex-col gap-5">
      <section aria-labelledby="tools-builtin">
        <h3 id="tools-builtin" className="mb-2 text-sm font-semibold">
          Builtin tools
        </h3>
        {error !== undefined && <Notice tone="error">{error}</Notice>}
        {tools === undefined && error === undefined && <Spinner label="Loading the tools" />}
        {tools !== undefined && (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Builtin tools of this agent</caption>
              <thead className="text-xs text-slate-500">
                <tr>
                  <th className="py-1 pr-3">Tool</th>
                  <th className="py-1 pr-3">Access</th>
                  <th className="py-1 pr-3">Timeout</th>
                  <th className="py-1">What it does</th>
                </tr>
              </thead>
              <tbody>
                {tools.builtin.map((t) => (
                  <tr key={t.name} className="border-t border-slate-200 align-top dark:border-slate-800">
                    <td className="py-1 pr-3 font-mono text-xs whitespace-nowrap">{t.name}</td>
                    <td className="py-1 pr-3 text-xs">{t.permission === "r" ? "read" : "read-write"}</td>
                    <td className="py-1 pr-3 text-xs whitespace-nowrap tabular-nums">{formatDuration(t.timeoutMs)}</td>
                    <td className="py-1 text-xs text-slate-600 dark:text-slate-400">
                      {t.description.split("\n")[0]}
                      {t.condition !== undefined && <span className="ml-1 rounded bg-slate-100 px-1 dark:bg-slate-800">for {t.condition}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {tools !== undefined && tools.mcp.length > 0 && (
        <section aria-labelledby="tools-mcp-configured">
          <h3 id="tools-mcp-configured" className="mb-2 text-sm font-semibold">
            Configured MCP servers
          </h3>
          <ul className="flex flex-col gap-1 text-sm">
            {tools.mcp.map((m) => (
              <li key={m.name} className="rounded-md border border-slate-200 px-2 py-1 dark:border-slate-800">
                <span className="font-mono">{m.name}</span> <span className="text-xs text-slate-500">· {m.transport} · permission {m.permission}</span>
                <div className="truncate font-mono text-xs text-slate-600 dark:text-slate-400">{m.url ?? [m.command, ...m.args].join(" ")}</div>
                {(m.envKeys.length > 0 || m.headerKeys.length > 0) && <div className="text-xs text-slate-500">{[...m.envKeys.map((k) => `env ${k}`), ...m.headerKeys.map((k) => `header ${k}`)].join(", ")}</div>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <McpPanel projectId={projectId} agentId={agentId} yaml={yaml} onYaml={onYaml} readOnly={readOnly} />
    </div>
  );
}
