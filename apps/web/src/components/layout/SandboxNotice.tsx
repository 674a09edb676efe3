/**
 * The strip that says plainly when the server runs session commands unsandboxed (bwrap
 * missing, or the sandbox turned off): then a model's commands can read and write whatever
 * the server's user can, and everyone using the app should know. Nothing shows while the
 * sandbox is on. The status comes from `/api/me`; a sign-in answer does not carry it, so
 * after a sign-in the strip asks `/api/me` once itself.
 */
import { useEffect, useState } from "react";
import { fetchMe } from "../../api/auth";
import type { SandboxInfo } from "../../api/types";
import { useAuth } from "../../state/auth-store";
import { Notice } from "../ui/Notice";

export function SandboxNotice() {
  const known = useAuth((s) => s.me?.sandbox);
  const [fetched, setFetched] = useState<SandboxInfo | undefined>(undefined);
  useEffect(() => {
    if (known !== undefined) return;
    let live = true;
    fetchMe()
      .then((me) => live && setFetched(me?.sandbox))
      .catch(() => undefined); // the strip is advisory; the app reports API errors elsewhere
    return () => {
      live = false;
    };
  }, [known]);
  const sandbox = known ?? fetched;
  if (sandbox === undefined || sandbox.enabled) return null;
  return (
    <Notice tone="warning" className="rounded-none border-x-0 border-t-0 py-1 text-xs">
      Commands run unsandboxed: {sandbox.available ? "the sandbox is turned off on this server" : "bwrap (bubblewrap) is not available on the server"}, so
      a session's commands can read and change any file the server can.
    </Notice>
  );
}
