// The small interactive parts on their own: the dialog's focus handling, the tabs' arrow
// keys, the collapsible thinking and notice rows, markdown (tables, safe links, escaped
// HTML, code blocks with a copy button), the pending steering/follow-up list, the session
// header's approval select and the password form's checks.
import { createSignal } from "solid-js";
import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { Markdown } from "../src/components/Markdown";
import { Dialog } from "../src/components/ui/Dialog";
import { Tabs } from "../src/components/ui/Tabs";
import { PasswordForm } from "../src/features/auth/PasswordForm";
import { PendingPanel } from "../src/features/chat/PendingPanel";
import { NoticeRow } from "../src/features/chat/rows/EventRows";
import { ThinkingRow } from "../src/features/chat/rows/ThinkingRow";
import { SessionHeader } from "../src/features/chat/SessionHeader";
import type { SessionSummary } from "../src/api/types";

describe("Dialog", () => {
  it("moves focus inside, keeps Tab inside, closes on Escape and gives focus back", async () => {
    const [open, setOpen] = createSignal(false);
    render(() => (
      <>
        <button type="button" onClick={() => setOpen(true)}>
          Open
        </button>
        {open() && (
          <Dialog title="Rename" onClose={() => setOpen(false)}>
            <input aria-label="Title" />
            <button type="button">Save</button>
          </Dialog>
        )}
      </>
    ));
    const opener = screen.getByRole("button", { name: "Open" });
    await userEvent.click(opener);
    expect(screen.getByRole("dialog", { name: "Rename" })).toBeInTheDocument();
    expect(screen.getByLabelText("Title")).toHaveFocus();
    await userEvent.tab();
    expect(screen.getByRole("button", { name: "Save" })).toHaveFocus();
    await userEvent.tab();
    expect(screen.getByLabelText("Title")).toHaveFocus();
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(opener).toHaveFocus();
  });
});

describe("Tabs", () => {
  it("moves the selection with the arrow keys, Home and End", async () => {
    const [tab, setTab] = createSignal<"a" | "b" | "c">("a");
    render(() => (
      <Tabs label="Parts" tabs={[{ id: "a", label: "Alpha" }, { id: "b", label: "Beta" }, { id: "c", label: "Gamma" }]} value={tab()} onChange={setTab}>
        <p>Panel {tab()}</p>
      </Tabs>
    ));
    screen.getByRole("tab", { name: "Alpha" }).focus();
    await userEvent.keyboard("{ArrowRight}");
    expect(screen.getByRole("tab", { name: "Beta" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("tab", { name: "Beta" })).toHaveFocus();
    expect(screen.getByRole("tabpanel")).toHaveTextContent("Panel b");
    await userEvent.keyboard("{End}");
    expect(screen.getByRole("tab", { name: "Gamma" })).toHaveAttribute("aria-selected", "true");
    await userEvent.keyboard("{ArrowRight}");
    expect(screen.getByRole("tab", { name: "Alpha" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("tab", { name: "Beta" })).toHaveAttribute("tabindex", "-1");
  });
});

describe("ThinkingRow and NoticeRow", () => {
  it("shows thinking open while it streams, then collapses it to its first line until asked", async () => {
    const [streaming, setStreaming] = createSignal(true);
    render(() => <ThinkingRow item={{ kind: "thinking", id: "t", text: "First idea\nthen the details", streaming: streaming() }} />);
    expect(screen.getByRole("button", { name: /Thinking…/ })).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByText(/then the details/)).toBeInTheDocument();
    setStreaming(false);
    const toggle = screen.getByRole("button", { name: /Thought/ });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(toggle).toHaveTextContent("First idea");
    expect(screen.queryByText(/then the details/)).not.toBeInTheDocument();
    await userEvent.click(toggle);
    expect(screen.getByText(/then the details/)).toBeInTheDocument();
  });

  it("opens a notice's body on demand, and has no toggle without a body", async () => {
    const { unmount } = render(() => <NoticeRow item={{ kind: "notice", id: "n", tag: "context_summary", title: "Context summary", body: "We did A and B." }} />);
    expect(screen.queryByText("We did A and B.")).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: /Context summary/ }));
    expect(screen.getByText("We did A and B.")).toBeInTheDocument();
    unmount();
    render(() => <NoticeRow item={{ kind: "notice", id: "n", tag: "abort", title: "Stopped", body: "" }} />);
    expect(screen.queryByRole("button")).not.toBeInTheDocument();
    expect(screen.getByText("Stopped")).toBeInTheDocument();
  });
});

describe("Markdown", () => {
  it("renders tables and code blocks, opens links in a new tab, and escapes raw HTML", () => {
    const text = "Intro with [a link](https://example.com).\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n<img src=x onerror=alert(1)>\n\n```unknownlang\nline one\n```";
    const { container } = render(() => <Markdown text={text} />);
    expect(container.querySelector("table td")).toHaveTextContent("1");
    const link = screen.getByRole("link", { name: "a link" });
    expect(link).toHaveAttribute("target", "_blank");
    expect(link).toHaveAttribute("rel", "noreferrer noopener");
    expect(container.querySelector("img")).toBeNull();
    expect(container).toHaveTextContent("<img src=x onerror=alert(1)>");
    expect(screen.getByRole("button", { name: "Copy code" })).toBeInTheDocument();
    expect(container.querySelector("pre code")).toHaveTextContent("line one");
  });

  it("follows a streaming text as it grows", () => {
    const [text, setText] = createSignal("Hel");
    const { container } = render(() => <Markdown text={text()} />);
    expect(container).toHaveTextContent("Hel");
    setText("Hello **there**");
    expect(container.querySelector("strong")).toHaveTextContent("there");
  });
});

describe("PendingPanel", () => {
  it("lists steering notes and queued follow-ups, each with Recall", async () => {
    const onRecall = vi.fn();
    render(() => (
      <PendingPanel
        steering={[{ id: "s1", text: "use bullet points" }]}
        followUps={[{ id: "f1", input: [{ type: "text", text: "then run the tests" }, { type: "image_url", imageUrl: "data:image/png;base64,AAAA" }] }]}
        onRecall={onRecall}
      />
    ));
    expect(screen.getByText("then run the tests (+1 attachment)")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Recall steering: use bullet points" }));
    await userEvent.click(screen.getByRole("button", { name: "Recall queued message 1" }));
    expect(onRecall.mock.calls).toEqual([
      ["steer", "s1"],
      ["followUp", "f1"],
    ]);
  });
});

describe("SessionHeader", () => {
  it("changes the approval mode and says when the stream is reconnecting", async () => {
    const session: SessionSummary = { id: "s", projectId: "p", agentId: "a", title: "T", provider: "x", modelId: "y", workspace: "/w/tmp-0123abcd", approvalMode: "allow-all", thinkingLevel: null, archived: false, source: null, forkedFrom: null, replayOf: null, state: "idle", createdAt: 1, lastActiveAt: 1 };
    const onPatch = vi.fn(async () => undefined);
    render(() => <SessionHeader session={session} title="T" connection="reconnecting" running={false} details={false} onDetails={() => undefined} onPatch={onPatch} />);
    expect(screen.getByRole("status")).toHaveTextContent("Reconnecting…");
    expect(screen.getByText("Temporary workspaces")).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText("Session approval mode"), "always-ask");
    expect(onPatch).toHaveBeenCalledWith({ approvalMode: "always-ask" });
  });
});

describe("PasswordForm", () => {
  it("refuses a short or mismatched new password before asking the server", async () => {
    render(() => <PasswordForm />);
    await userEvent.type(screen.getByLabelText("Current password"), "old-password");
    await userEvent.type(screen.getByLabelText("New password"), "short");
    expect(screen.getByText("At least 8 characters.")).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("New password"), "-but-longer");
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "something-else");
    expect(screen.getByText("The two new passwords differ.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Change password" })).toBeDisabled();
    await userEvent.clear(screen.getByLabelText("Repeat the new password"));
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "short-but-longer");
    expect(screen.getByRole("button", { name: "Change password" })).toBeEnabled();
  });
});
