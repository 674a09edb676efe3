/**
 * Opens a SessionController for a session id while the component is mounted, and returns
 * its live state. Closes it on unmount or id change; on the browser's `online` event it
 * reconnects at once instead of waiting out the back-off.
 */
import { useEffect, useState } from "react";
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import { initialSessionViewState, SessionController, type SessionViewState } from "../../lib/stream/session-controller";

const idle = createStore<SessionViewState>(initialSessionViewState);

export function useSessionController(sessionId: string): { controller: SessionController | undefined; state: SessionViewState } {
  const [controller, setController] = useState<SessionController | undefined>(undefined);
  useEffect(() => {
    const c = new SessionController(sessionId);
    c.start();
    setController(c);
    const online = () => c.reconnectNow();
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("online", online);
      c.close();
      setController(undefined);
    };
  }, [sessionId]);
  const state = useStore(controller?.store ?? idle);
  return { controller, state };
}
