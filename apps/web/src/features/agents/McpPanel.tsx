/**
 * Tools and MCP servers: the MCP servers configured in system_config.yaml, a form to add
 * one (stdio command or HTTP URL) that writes into the config text (mcp-yaml.ts), and a
 * connection test through the server (`A/config/mcp-test`: it connects the server the way a
 * session would and lists its tools). The new entry is saved with the config, where the
 * server validates the whole file.
 */
import { useState } from "react";
import { testMcp } from "../../api/agents";
import { errorText } from "../../api/http";
import type { McpTestResult } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { SelectField, TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { addMcpServer, listMcpServers, mcpConfigOf, type McpServerForm } from "./mcp-yaml";

export function McpPanel({ projectId, agentId, yaml, onYaml, readOnly }: { projectId: string; agentId: string; yaml: string; onYaml(v: string): void; readOnly: boolean }) {
  const [form, setForm] = useState<McpServerForm>({ name: "", transport: "stdio", command: "", args: [], url: "" });
  const [argsText, setArgsText] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<McpTestResult | undefined>(undefined);
  const [testing, setTesting] = useState(false);
  const servers = listMcpServers(yaml);
  const current: McpServerForm = { ...form, args: argsText.split(/\s+/).filter((a) => a !== "") };
  const complete = current.name !== "" && (current.transport === "http" ? current.url !== "" : current.command !== "");

  const test = async () => {
    setError(undefined);
    setResult(undefined);
    setTesting(true);
    try {
      setResult(await testMcp(projectId, agentId, { name: current.name, config: mcpConfigOf(current) }));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setTesting(false);
    }
  };

  const add = () => {
    setError(undefined);
    try {
      onYaml(addMcpServer(yaml, current));
      setForm({ name: "", transport: "stdio", command: "", args: [], url: "" });
      setArgsText("");
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-slate-600 dark:text-slate-400">
        The builtin tools are always available. MCP servers add their tools as <code>mcp__&lt;name&gt;__&lt;tool&gt;</code>. Changes are saved with the runtime configuration (Save below).
      </p>
      <section aria-labelledby="mcp-list">
        <h3 id="mcp-list" className="mb-1 text-sm font-semibold">
          MCP servers
        </h3>
        {servers.length === 0 ? <p className="text-sm text-slate-500">None configured.</p> : (
          <ul className="flex flex-wrap gap-2">
            {servers.map((s) => (
              <li key={s} className="rounded bg-slate-100 px-2 py-0.5 font-mono text-xs dark:bg-slate-800">
                {s}
              </li>
            ))}
          </ul>
        )}
      </section>
      {!readOnly && (
        <section aria-labelledby="mcp-add" className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
          <h3 id="mcp-add" className="mb-2 text-sm font-semibold">
            Add an MCP server
          </h3>
          <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
            <TextField label="Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
            <SelectField label="Transport" value={form.transport} onValue={(t) => setForm({ ...form, transport: t })} options={[{ value: "stdio", label: "stdio (a command)" }, { value: "http", label: "HTTP (a URL)" }]} />
            {form.transport === "stdio" ? (
              <>
                <TextField label="Command" value={form.command} onChange={(e) => setForm({ ...form, command: e.target.value })} placeholder="npx" />
                <TextField label="Arguments (space separated)" value={argsText} onChange={(e) => setArgsText(e.target.value)} />
              </>
            ) : (
              <TextField label="URL" type="url" value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} className="sm:col-span-2" />
            )}
          </div>
          <div className="mt-2 flex gap-2">
            <Button onClick={() => void test()} disabled={!complete || testing}>
              {testing ? "Connecting…" : "Test connection"}
            </Button>
            <Button variant="primary" onClick={add} disabled={!complete}>
              Add to configuration
            </Button>
          </div>
          {error !== undefined && <Notice tone="error" className="mt-2">{error}</Notice>}
          {result !== undefined && <McpResult result={result} />}
        </section>
      )}
    </div>
  );
}

function McpResult({ result }: { result: McpTestResult }) {
  const how = `${result.transport}, ${result.durationMs} ms`;
  if (!result.ok) {
    return (
      <Notice tone="error" className="mt-2">
        Could not connect ({how}): {result.error ?? "no answer"}
      </Notice>
    );
  }
  return (
    <Notice tone="success" className="mt-2">
      <p>
        Connected ({how}): {result.tools.length} tool{result.tools.length === 1 ? "" : "s"}.
      </p>
      <ul aria-label="MCP tools" className="mt-1 max-h-48 overflow-auto text-xs">
        {result.tools.map((t) => (
          <li key={t.name}>
            <span className="font-mono">{t.name}</span> <span className="text-slate-500">({t.permission === "r" ? "read" : "read-write"})</span> {t.description.split("\n")[0]}
          </li>
        ))}
      </ul>
    </Notice>
  );
}
