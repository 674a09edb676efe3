// How a session's commands run, as its header shows it: the one-session read's `sandbox` and
// `permissions` parsed (a list row, which carries neither, shows nothing); "Sandboxed" with a
// network switch whose enabled state follows the server's rules for the reader (owner: both
// ways; the member who created it: only off; another member: neither; a server-wide
// allowance: on and fixed), disabled while a change is on its way; and "Commands unsandboxed"
// with the reason when bwrap is missing or the sandbox is off. The switch drives the header's
// PATCH (`{sandboxNetwork}`) and shows what the server accepted.
import { createSignal } from "solid-js";
import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { sessionOf } from "../src/api/sessions";
import type { SessionCommandsInfo, SessionSummary } from "../src/api/types";
import { CommandsStatus } from "../src/features/chat/CommandsStatus";
import { SessionHeader } from "../src/features/chat/SessionHeader";

const OWNER: SessionCommandsInfo = { sandboxAvailable: true, sandboxed: true, serverNetwork: false, mayControl: true, mayAllowNetwork: true };
const CREATOR: SessionCommandsInfo = { ...OWNER, mayAllowNetwork: false };
const OTHER_MEMBER: SessionCommandsInfo = { ...OWNER, mayControl: false, mayAllowNetwork: false };

const ROW = { id: "s", projectId: "p", agentId: "a", title: "T", provider: "x", modelId: "y", workspace: "/w/ws", approvalMode: "allow-all", thinkingLevel: null, archived: false, state: "idle", createdAt: 1, lastActiveAt: 1, sandboxNetwork: false };

const networkSwitch = () => screen.getByRole("switch", { name: "Network for this session's commands" });

/** A switch whose change the "server" accepts: the shown allowance follows the answer. */
function renderAccepting(commands: SessionCommandsInfo, initially: boolean) {
  const [network, setNetwork] = createSignal(initially);
  const asked: boolean[] = [];
  render(() => (
    <CommandsStatus
      commands={commands}
      network={network()}
      onNetwork={async (allowed) => {
        asked.push(allowed);
        setNetwork(allowed);
      }}
    />
  ));
  return asked;
}

describe("the session read's command status", () => {
  it("is parsed from the one-session answer, and absent from a list row", () => {
    const read = sessionOf({ ...ROW, sandbox: { available: true, enabled: true, serverNetwork: false }, permissions: { control: true, allowNetwork: false } });
    expect(read?.sandboxNetwork).toBe(false);
    expect(read?.commands).toEqual(CREATOR);
    expect(sessionOf(ROW)?.commands).toBeUndefined();
    // A permission the answer does not grant counts as refused.
    expect(sessionOf({ ...ROW, sandbox: { available: false, enabled: false } })?.commands).toEqual({ sandboxAvailable: false, sandboxed: false, serverNetwork: false, mayControl: false, mayAllowNetwork: false });
  });
});

describe("CommandsStatus", () => {
  it("lets a project owner allow the network and take it back", async () => {
    const asked = renderAccepting(OWNER, false);
    expect(screen.getByText("Sandboxed")).toBeInTheDocument();
    expect(networkSwitch()).toHaveAttribute("aria-checked", "false");
    expect(networkSwitch()).toHaveTextContent("Network off");
    await userEvent.click(networkSwitch());
    expect(networkSwitch()).toHaveAttribute("aria-checked", "true");
    expect(networkSwitch()).toHaveTextContent("Network on");
    await userEvent.click(networkSwitch());
    expect(networkSwitch()).toHaveAttribute("aria-checked", "false");
    expect(asked).toEqual([true, false]);
  });

  it("lets the member who created the session take the network back, but not allow it", async () => {
    const asked = renderAccepting(CREATOR, true);
    expect(networkSwitch()).toBeEnabled();
    await userEvent.click(networkSwitch());
    expect(asked).toEqual([false]);
    expect(networkSwitch()).toBeDisabled();
    expect(networkSwitch()).toHaveAttribute("title", "Only a project owner or the admin may allow the network");
  });

  it("lets another member change neither way", () => {
    render(() => <CommandsStatus commands={OTHER_MEMBER} network={true} onNetwork={async () => undefined} />);
    expect(networkSwitch()).toBeDisabled();
    expect(networkSwitch()).toHaveAttribute("title", "Only the session's creator or a project owner may take the network back");
  });

  it("shows a server-wide allowance as on and fixed, even for the owner", () => {
    render(() => <CommandsStatus commands={{ ...OWNER, serverNetwork: true }} network={false} onNetwork={async () => undefined} />);
    expect(networkSwitch()).toHaveAttribute("aria-checked", "true");
    expect(networkSwitch()).toBeDisabled();
    expect(networkSwitch()).toHaveAttribute("title", "The server allows every session's commands the network");
  });

  it("is disabled while a change is on its way, and unchanged when the server refuses it", async () => {
    let answer: () => void = () => undefined;
    const onNetwork = vi.fn(() => new Promise<void>((resolve) => (answer = resolve)));
    render(() => <CommandsStatus commands={OWNER} network={false} onNetwork={onNetwork} />);
    await userEvent.click(networkSwitch());
    expect(onNetwork).toHaveBeenCalledWith(true);
    expect(networkSwitch()).toBeDisabled();
    answer(); // refused: the allowance the view passes stays off
    await vi.waitFor(() => expect(networkSwitch()).toBeEnabled());
    expect(networkSwitch()).toHaveAttribute("aria-checked", "false");
  });

  it("says commands run unsandboxed, and why, with no switch", () => {
    const missing = render(() => <CommandsStatus commands={{ ...OWNER, sandboxAvailable: false, sandboxed: false }} network={false} onNetwork={async () => undefined} />);
    expect(screen.getByRole("status")).toHaveTextContent("Commands unsandboxed");
    expect(screen.getByRole("status").getAttribute("title")).toMatch(/^bwrap \(bubblewrap\) is not available on the server: /);
    expect(screen.queryByRole("switch")).toBeNull();
    missing.unmount();
    render(() => <CommandsStatus commands={{ ...OWNER, sandboxed: false }} network={false} onNetwork={async () => undefined} />);
    expect(screen.getByRole("status").getAttribute("title")).toMatch(/^The sandbox is turned off on this server: /);
  });
});

describe("SessionHeader's command status", () => {
  it("shows it for a session read and patches the allowance; a list row shows none", async () => {
    const read = sessionOf({ ...ROW, sandbox: { available: true, enabled: true, serverNetwork: false }, permissions: { control: true, allowNetwork: true } }) as SessionSummary;
    const [session, setSession] = createSignal<SessionSummary>(read);
    const patches: unknown[] = [];
    const header = render(() => (
      <SessionHeader
        session={session()}
        title="T"
        connection="open"
        running={false}
        details={false}
        onDetails={() => undefined}
        onPatch={async (p) => {
          patches.push(p);
          setSession((s) => ({ ...s, ...p }));
        }}
      />
    ));
    await userEvent.click(networkSwitch());
    expect(patches).toEqual([{ sandboxNetwork: true }]);
    expect(networkSwitch()).toHaveAttribute("aria-checked", "true");
    header.unmount();
    render(() => <SessionHeader session={sessionOf(ROW)} title="T" connection="open" running={false} details={false} onDetails={() => undefined} onPatch={async () => undefined} />);
    expect(screen.queryByRole("switch")).toBeNull();
    expect(screen.queryByText("Sandboxed")).toBeNull();
  });
});
