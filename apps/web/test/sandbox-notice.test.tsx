// The "commands run unsandboxed" strip against a scripted `/api/me` (the transport swapped):
// shown with the reason when bwrap is missing or the sandbox is off, absent while commands
// run sandboxed, and fetched once by itself when the signed-in user came from a sign-in
// answer, which carries no sandbox status.
import { afterEach, describe, expect, it } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import { setFetch } from "../src/api/http";
import { SandboxNotice } from "../src/components/layout/SandboxNotice";
import { loadAuth, signIn, signOut } from "../src/state/auth-store";

const USER = { userId: "ada", isAdmin: false, passwordIsInitial: false };

function serveMe(sandbox: { available: boolean; enabled: boolean }): string[] {
  const paths: string[] = [];
  setFetch(async (input) => {
    const path = new URL(String(input), "http://localhost").pathname;
    paths.push(path);
    if (path === "/api/me") return new Response(JSON.stringify({ user: USER, uploadLimits: { attachmentMaxMb: 5, attachmentTotalMb: 20 }, sandbox }), { status: 200 });
    if (path === "/api/auth/login") return new Response(JSON.stringify({ user: USER }), { status: 200 });
    if (path === "/api/auth/logout") return new Response(null, { status: 204 });
    return new Response(JSON.stringify({ error: { code: "not_found", message: path } }), { status: 404 });
  });
  return paths;
}

afterEach(async () => {
  await signOut();
});

describe("SandboxNotice", () => {
  it("says commands run unsandboxed, and why, when bwrap is missing on the server", async () => {
    serveMe({ available: false, enabled: false });
    await loadAuth();
    render(() => <SandboxNotice />);
    expect(screen.getByRole("status")).toHaveTextContent("Commands run unsandboxed: bwrap (bubblewrap) is not available on the server");
  });

  it("names a sandbox the operator turned off", async () => {
    serveMe({ available: true, enabled: false });
    await loadAuth();
    render(() => <SandboxNotice />);
    expect(screen.getByRole("status")).toHaveTextContent("the sandbox is turned off on this server");
  });

  it("shows nothing while commands run sandboxed", async () => {
    serveMe({ available: true, enabled: true });
    await loadAuth();
    const { container } = render(() => <SandboxNotice />);
    expect(container.textContent).toBe("");
    expect(screen.queryByRole("status")).toBeNull();
  });

  it("after a sign-in (no sandbox status in the answer) asks /api/me once and then shows the strip", async () => {
    const paths = serveMe({ available: false, enabled: false });
    await signIn("ada", "secret");
    render(() => <SandboxNotice />);
    expect(await screen.findByRole("status")).toHaveTextContent("Commands run unsandboxed");
    expect(paths.filter((p) => p === "/api/me")).toHaveLength(1);
  });
});
