/**
 * Opens a SessionController for one session id for the life of the calling component and
 * returns it (its `view` is the live Solid store). Closes it when the component goes; on the
 * browser's `online` event it reconnects at once instead of waiting out the back-off. The
 * chat page mounts a fresh SessionView per id, so the id never changes under a controller.
 */
import { onCleanup, onMount } from "solid-js";
import { SessionController } from "../../lib/stream/session-controller";

export function createSessionController(sessionId: string): SessionController {
  const controller = new SessionController(sessionId);
  onMount(() => {
    controller.start();
    const online = () => controller.reconnectNow();
    window.addEventListener("online", online);
    onCleanup(() => {
      window.removeEventListener("online", online);
      controller.close();
    });
  });
  return controller;
}
