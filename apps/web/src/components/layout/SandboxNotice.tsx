/**
 * The strip that says plainly when the server runs session commands unsandboxed (bwrap
 * missing, or the sandbox turned off): then a model's commands can read and write whatever
 * the server's user can, and everyone using the app should know. Nothing shows while the
 * sandbox is on. The status comes from `/api/me`; a sign-in answer does not carry it, so
 * after a sign-in the strip asks `/api/me` once itself.
 */
import { Show, createResource } from "solid-js";
import { fetchMe } from "../../api/auth";
import type { SandboxInfo } from "../../api/types";
import { auth } from "../../state/auth-store";
import { Notice } from "../ui/Notice";

export function SandboxNotice() {
  const known = () => auth.me?.sandbox;
  // Asked only while the signed-in user's record lacks the status (a sign-in answer).
  const [fetched] = createResource(
    () => (known() === undefined ? true : undefined),
    async (): Promise<SandboxInfo | undefined> => (await fetchMe().catch(() => undefined))?.sandbox, // advisory: API errors show elsewhere
  );
  const sandbox = () => known() ?? fetched();
  return (
    <Show when={sandbox() !== undefined && sandbox()?.enabled === false}>
      <Notice tone="warning" class="rounded-none border-x-0 border-t-0 py-1 text-xs">
        Commands run unsandboxed:{" "}
        {sandbox()?.available === true ? "the sandbox is turned off on this server" : "bwrap (bubblewrap) is not available on the server"}, so a session's
        commands can read and change any file the server can.
      </Notice>
    </Show>
  );
}
