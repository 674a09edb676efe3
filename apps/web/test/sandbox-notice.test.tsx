// The "commands run unsandboxed" strip against a scripted `/api/me` (the transport swapped):
// shown with the reason when bwrap is missing or the sandbox is off, absent while commands
// run sandboxed, and fetched once by itself when the signed-in user came from a sign-in
// answer, which carries no sandbox status.
import { afterEach, describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { setFetch } from "../src/api/http";
import { SandboxNotice } from "../src/components/layout/SandboxNotice";
import { useAuth } from "../src/state/auth-store";

function serveMe(sandbox: { available: boolean; enabled: boolean }): string[] {
  const paths: string[] = [];
  setFetch(async (input) => {
    const path = new URL(String(input), "http://localhost").pathname;
    paths.push(path);
    if (path === "/api/me") {
      return new Response(JSON.stringify({ user: { userId: "ada", isAdmin: false, passwordIsInitial: false }, uploadLimits: { attachmentMaxMb: 5, attachmentTotalMb: 20 }, sandbox }), { status: 200 });
    }
    return new Response(JSON.stringify({ error: { code: "not_found", message: path } }), { status: 404 });
  });
  return paths;
}

afterEach(() => useAuth.setState({ status: "loading", me: undefined, error: undefined }));

describe("SandboxNotice", () => {
  it("says commands run unsandboxed, and why, when bwrap is missing on the server", async () => {
    serveMe({ available: false, enabled: false });
    await useAuth.getState().load();
    render(<SandboxNotice />);
    expect(screen.getByRole("status")).toHaveTextContent("Commands run unsandboxed: bwrap (bubblewrap) is not available on the server");
  });

  it("names a sandbox the operator turned off", async () => {
    serveMe({ available: true, enabled: false });
    await useAuth.getState().load();
    render(<SandboxNotice />);
    expect(screen.getByRole("status")).toHaveTextContent("the sandbox is turned off on this server");
  });

  it("shows nothing while commands run sandboxed", async () => {
    serveMe({ available: true, enabled: true });
    await useAuth.getState().load();
    const { container } = render(<SandboxNotice />);
    expect(container).toBeEmptyDOMElement();
  });

  it("after a sign-in (no sandbox status in the answer) asks /api/me once and then shows the strip", async () => {
    const paths = serveMe({ available: false, enabled: false });
    useAuth.setState({ status: "signed-in", me: { userId: "ada", isAdmin: false, passwordIsInitial: false } });
    render(<SandboxNotice />);
    expect(await screen.findByRole("status")).toHaveTextContent("Commands run unsandboxed");
    expect(paths.filter((p) => p === "/api/me")).toHaveLength(1);
  });
});
