/**
 * How a session's commands run, in its header: "Sandboxed" with a switch for the network, or
 * "Commands unsandboxed" with the reason (bwrap missing on the server, or the sandbox turned
 * off there), so nobody mistakes an unconfined session for a confined one.
 *
 * The switch follows the server's rules as the one-session read reports them for this reader
 * (the PATCH enforces the same): allowing the network is for a project owner or the admin,
 * taking it back for the session's creator, an owner or the admin. A server that allows every
 * session the network shows it on and fixed. The switch says why when it is disabled, and it
 * is disabled while a change is on its way; a refused change leaves it as it was (the session
 * view shows the server's message).
 */
import { createSignal, Show } from "solid-js";
import type { SessionCommandsInfo } from "../../api/types";

const BADGE = "rounded px-1.5 py-0.5 text-xs";
const UNCONFINED = "this session's commands can read and change any file the server can";

export interface CommandsStatusProps {
  commands: SessionCommandsInfo;
  /** The session's own allowance (`sandboxNetwork`). */
  network: boolean;
  /** Asks the server to allow (true) or take back (false) the network; resolves when answered. */
  onNetwork(allowed: boolean): Promise<void>;
}

export function CommandsStatus(props: CommandsStatusProps) {
  const [changing, setChanging] = createSignal(false);
  const on = () => props.commands.serverNetwork || props.network;
  /** Why this reader cannot flip the switch now, if they cannot. */
  const refusal = (): string | undefined => {
    if (props.commands.serverNetwork) return "The server allows every session's commands the network";
    if (on() && !props.commands.mayControl) return "Only the session's creator or a project owner may take the network back";
    if (!on() && !props.commands.mayAllowNetwork) return "Only a project owner or the admin may allow the network";
    return undefined;
  };
  const flip = async (): Promise<void> => {
    setChanging(true);
    try {
      await props.onNetwork(!on());
    } finally {
      setChanging(false);
    }
  };
  return (
    <Show
      when={props.commands.sandboxed}
      fallback={
        <span
          role="status"
          class={`${BADGE} bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100`}
          title={`${props.commands.sandboxAvailable ? "The sandbox is turned off on this server" : "bwrap (bubblewrap) is not available on the server"}: ${UNCONFINED}`}
        >
          Commands unsandboxed
        </span>
      }
    >
      <span
        class={`${BADGE} bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100`}
        title="Commands run in a bubblewrap sandbox: the system read-only, the workspace writable, the data root and other workspaces hidden"
      >
        Sandboxed
      </span>
      <button
        type="button"
        role="switch"
        aria-checked={on()}
        aria-label="Network for this session's commands"
        disabled={changing() || refusal() !== undefined}
        title={refusal() ?? (on() ? "Turn the network off for this session's commands" : "Let this session's commands use the network")}
        onClick={() => void flip()}
        class={`${BADGE} border ${on() ? "border-amber-400 bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100" : "border-slate-300 dark:border-slate-700"} enabled:hover:bg-slate-100 disabled:opacity-60 dark:enabled:hover:bg-slate-800`}
      >
        Network {on() ? "on" : "off"}
      </button>
    </Show>
  );
}
