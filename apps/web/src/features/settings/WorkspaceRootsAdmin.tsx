/**
 * The admin's "Workspace roots": the folders of the server under which people may choose a
 * session's workspace (server settings `workspaceRoots`, one absolute path per line). Without
 * any, the web can only work in temporary folders (and the roots the server was started with);
 * a workspace outside them is refused with a message pointing here. The folder picker on the
 * Chat page browses these roots.
 */
import { createResource, createSignal, Show } from "solid-js";
import { errorText } from "../../api/http";
import { getServerSettings, saveWorkspaceRoots, workspaceRoots } from "../../api/server-settings";
import { Button } from "../../components/ui/Button";
import { TextAreaField } from "../../components/ui/Field";
import { Notice } from "../../components/ui/Notice";

export function WorkspaceRootsAdmin() {
  const [roots, setRoots] = createSignal("");
  const [error, setError] = createSignal<string | undefined>(undefined);
  const [message, setMessage] = createSignal<string | undefined>(undefined);
  const [loaded] = createResource(async () => {
    try {
      setRoots(workspaceRoots(await getServerSettings()).join("\n"));
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  });

  const save = async () => {
    setError(undefined);
    setMessage(undefined);
    const list = roots()
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    try {
      setRoots(workspaceRoots(await saveWorkspaceRoots(list)).join("\n"));
      setMessage("Workspace roots saved. The folder picker on the Chat page browses them.");
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
        label="Folders where workspaces may be"
        rows={3}
        value={roots()}
        onValue={setRoots}
        disabled={loaded() !== true}
        placeholder={"/home/alice/projects\n/srv/repos"}
        hint="One absolute path per line, on the server. A session's workspace must be inside one of them (or be a temporary folder). The server's data root is never allowed."
      />
      <div>
        <Button type="submit" variant="primary" disabled={loaded() !== true}>
          Save workspace roots
        </Button>
      </div>
      <Show when={error()}>{(e) => <Notice tone="error">{e()}</Notice>}</Show>
      <Show when={message()}>{(m) => <Notice tone="success">{m()}</Notice>}</Show>
    </form>
  );
}
