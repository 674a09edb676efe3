/**
 * Tools and MCP servers: the MCP servers configured in system_config.yaml, a form to add
 * one (stdio command or HTTP URL) that writes into the config text (mcp-yaml.ts), and a
 * connection test through the server (`A/config/mcp-test`: it connects the server the way a
 * session would, in its sandbox, and lists its tools; a command not on the admin's list is
 * refused with a message saying so). The new entry is saved with the config, where the
 * server validates the whole file.
 */
import { createSignal, For, Show } from "solid-js";
import { createStore } from "solid-js/store";
import { testMcp } from "../../api/agents";
import { errorText } from "../../api/http";
import type { McpTestResult } from "../../api/types";
import { Button } from "../../components/ui/Button";
import { SelectField, TextField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";
import { addMcpServer, listMcpServers, mcpConfigOf, type McpServerForm } from "./mcp-yaml";

const BLANK: McpServerForm = { name: "", transport: "stdio", command: "", args: [], url: "" };

export function McpPanel(props: { projectId: string; agentId: string; yaml: string; onYaml(v: string): void; readOnly: boolean }) {
  const [form, setForm] = createStore<McpServerForm>({ ...BLANK });
  const [argsText, setArgsText] = createSignal("");
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [result, setResult] = createSignal<McpTestResult | undefined>(undefined);
  const [testing, setTesting] = createSignal(false);
  const servers = () => listMcpServers(props.yaml);
  const current = (): McpServerForm => ({ name: form.name, transport: form.transport, command: form.command, url: form.url, args: argsText().split(/\s+/).filter((a) => a !== "") });
  const complete = () => {
    const c = current();
    return c.name !== "" && (c.transport === "http" ? c.url !== "" : c.command !== "");
  };

  const test = async () => {
    setError(undefined);
    setResult(undefined);
    setTesting(true);
    const c = current();
    try {
      setResult(await testMcp(props.projectId, props.agentId, { name: c.name, config: mcpConfigOf(c) }));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setTesting(false);
    }
  };

  const add = () => {
    setError(undefined);
    try {
      props.onYaml(addMcpServer(props.yaml, current()));
      setForm({ ...BLANK });
      setArgsText("");
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div class="flex flex-col gap-3">
      <p class="text-sm text-slate-600 dark:text-slate-400">
        The builtin tools are always available. MCP servers add their tools as <code>mcp__&lt;name&gt;__&lt;tool&gt;</code>. Changes are saved with the runtime configuration (Save below).
      </p>
      <section aria-labelledby="mcp-list">
        <h3 id="mcp-list" class="mb-1 text-sm font-semibold">
          MCP servers
        </h3>
        <Show when={servers().length > 0} fallback={<p class="text-sm text-slate-500">None configured.</p>}>
          <ul class="flex flex-wrap gap-2">
            <For each={servers()}>{(s) => <li class="rounded bg-slate-100 px-2 py-0.5 font-mono text-xs dark:bg-slate-800">{s}</li>}</For>
          </ul>
        </Show>
      </section>
      <Show when={!props.readOnly}>
        <section aria-labelledby="mcp-add" class="rounded-md border border-slate-200 p-3 dark:border-slate-800">
          <h3 id="mcp-add" class="mb-2 text-sm font-semibold">
            Add an MCP server
          </h3>
          <div class="grid grid-cols-1 gap-2 sm:grid-cols-2">
            <TextField label="Name" value={form.name} onValue={(v) => setForm("name", v)} />
            <SelectField
              label="Transport"
              value={form.transport}
              onValue={(t) => setForm("transport", t)}
              options={[
                { value: "stdio", label: "stdio (a command)" },
                { value: "http", label: "HTTP (a URL)" },
              ]}
            />
            <Show when={form.transport === "stdio"} fallback={<TextField label="URL" type="url" value={form.url} onValue={(v) => setForm("url", v)} class="sm:col-span-2" />}>
              <TextField label="Command" value={form.command} onValue={(v) => setForm("command", v)} placeholder="npx" hint="On a shared server, one of the commands the admin allows (Settings → MCP commands); it runs in the session's sandbox." />
              <TextField label="Arguments (space separated)" value={argsText()} onValue={setArgsText} />
            </Show>
          </div>
          <div class="mt-2 flex gap-2">
            <Button onClick={() => void test()} disabled={!complete() || testing()}>
              {testing() ? "Connecting…" : "Test connection"}
            </Button>
            <Button variant="primary" onClick={add} disabled={!complete()}>
              Add to configuration
            </Button>
          </div>
          <Show when={error()}>
            {(e) => (
              <Notice tone="error" class="mt-2">
                {e()}
              </Notice>
            )}
          </Show>
          <Show when={result()}>{(r) => <McpResult result={r()} />}</Show>
        </section>
      </Show>
    </div>
  );
}

function McpResult(props: { result: McpTestResult }) {
  const how = () => `${props.result.transport}, ${props.result.durationMs} ms`;
  return (
    <Show
      when={props.result.ok}
      fallback={
        <Notice tone="error" class="mt-2">
          Could not connect ({how()}): {props.result.error ?? "no answer"}
        </Notice>
      }
    >
      <Notice tone="success" class="mt-2">
        <p>
          Connected ({how()}): {props.result.tools.length} tool{props.result.tools.length === 1 ? "" : "s"}.
        </p>
        <ul aria-label="MCP tools" class="mt-1 max-h-48 overflow-auto text-xs">
          <For each={props.result.tools}>
            {(t) => (
              <li>
                <span class="font-mono">{t.name}</span> <span class="text-slate-500">({t.permission === "r" ? "read" : "read-write"})</span> {t.description.split("\n")[0]}
              </li>
            )}
          </For>
        </ul>
      </Notice>
    </Show>
  );
}
