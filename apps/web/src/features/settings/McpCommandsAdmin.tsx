/**
 * The admin's "MCP commands": which commands stdio MCP servers may run on this server (one per
 * line, a name on the server's PATH or an absolute path), and the switch that lets them run
 * where commands are not sandboxed. Owners pick from this list in their agent's MCP servers (or
 * use url servers); a command not on it is refused with a message pointing here.
 */
import { createResource, createSignal, Show } from "solid-js";
import { errorText } from "../../api/http";
import { getServerSettings, mcpCommandSettings, saveMcpCommandSettings } from "../../api/server-settings";
import { Button } from "../../components/ui/Button";
import { CheckboxField, TextAreaField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";

export function McpCommandsAdmin() {
  const [commands, setCommands] = createSignal("");
  const [unsandboxed, setUnsandboxed] = createSignal(false);
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [message, setMessage] = createSignal<string | undefined>(undefined);
  const [loaded] = createResource(async () => {
    try {
      const mcp = mcpCommandSettings(await getServerSettings());
      setCommands(mcp.stdioCommands.join("\n"));
      setUnsandboxed(mcp.allowUnsandboxedStdio);
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  });

  const save = async () => {
    setError(undefined);
    setMessage(undefined);
    const stdioCommands = commands()
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    try {
      const saved = mcpCommandSettings(await saveMcpCommandSettings({ stdioCommands, allowUnsandboxedStdio: unsandboxed() }));
      setCommands(saved.stdioCommands.join("\n"));
      setUnsandboxed(saved.allowUnsandboxedStdio);
      setMessage("MCP commands saved.");
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <form
      class="flex flex-col gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <TextAreaField
        label="Commands stdio MCP servers may run"
        rows={4}
        value={commands()}
        onValue={setCommands}
        disabled={loaded() !== true}
        placeholder={"npx\nuvx\n/usr/local/bin/my-mcp"}
        hint="One per line: a name on the server's PATH or an absolute path. A server's command must resolve to one of these files; others are refused. Empty: only url servers."
      />
      <CheckboxField
        label="Run stdio MCP servers without a sandbox (where bwrap is missing or the server runs with --no-sandbox). They then run as the server's own user and can read every project's keys and traces."
        checked={unsandboxed()}
        onChecked={setUnsandboxed}
        disabled={loaded() !== true}
      />
      <div>
        <Button type="submit" variant="primary" disabled={loaded() !== true}>
          Save MCP commands
        </Button>
      </div>
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={message()}>{(m) => <Notice tone="success">{m()}</Notice>}</Show>
    </form>
  );
}
