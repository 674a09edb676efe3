// Tool cards: header summary and status, inline Allow/Deny for approvals, output toggle.
import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { ToolCard } from "../src/features/chat/rows/ToolCard";
import type { ToolItem } from "../src/lib/stream/view-model";

const item = (over: Partial<ToolItem> = {}): ToolItem => ({
  kind: "tool",
  id: "i1",
  toolCallId: "call_0",
  name: "exec_command",
  args: JSON.stringify({ cmd: "printf hi > hello.txt" }),
  status: "pending",
  output: "",
  images: [],
  outputStreaming: false,
  decision: undefined,
  policyRule: undefined,
  startedAt: Date.now(),
  endedAt: undefined,
  ...over,
});

describe("ToolCard", () => {
  it("shows the name and a summary of the arguments", () => {
    render(() =><ToolCard item={item()} awaitingApproval={false} onDecide={async () => undefined} />);
    expect(screen.getByText("exec_command")).toBeInTheDocument();
    expect(screen.getByText("printf hi > hello.txt")).toBeInTheDocument();
    expect(screen.getByText("waiting")).toBeInTheDocument();
  });

  it("offers Allow and Deny while awaiting approval, once", async () => {
    const onDecide = vi.fn(async () => undefined);
    render(() =><ToolCard item={item()} awaitingApproval onDecide={onDecide} />);
    const allow = screen.getByRole("button", { name: "Allow" });
    const deny = screen.getByRole("button", { name: "Deny" });
    await userEvent.click(allow);
    expect(onDecide).toHaveBeenCalledWith("call_0", "allow");
    expect(allow).toBeDisabled();
    expect(deny).toBeDisabled();
  });

  it("is decided by keyboard alone: Tab reaches Allow first, Enter allows; Deny is next, and Space denies", async () => {
    const allowed = vi.fn(async () => undefined);
    const first = render(() =><ToolCard item={item()} awaitingApproval onDecide={allowed} />);
    await userEvent.tab();
    expect(screen.getByRole("button", { name: "Allow" })).toHaveFocus();
    await userEvent.keyboard("{Enter}");
    expect(allowed).toHaveBeenCalledWith("call_0", "allow");
    first.unmount();

    const denied = vi.fn(async () => undefined);
    render(() =><ToolCard item={item()} awaitingApproval onDecide={denied} />);
    await userEvent.tab();
    await userEvent.tab();
    expect(screen.getByRole("button", { name: "Deny" })).toHaveFocus();
    await userEvent.keyboard(" ");
    expect(denied).toHaveBeenCalledWith("call_0", "deny");
  });

  it("re-enables the buttons and shows the error when the decision fails", async () => {
    const onDecide = vi.fn(async () => {
      throw new Error("pending approval call_0 not found");
    });
    render(() =><ToolCard item={item()} awaitingApproval onDecide={onDecide} />);
    await userEvent.click(screen.getByRole("button", { name: "Deny" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("not found");
    expect(screen.getByRole("button", { name: "Deny" })).toBeEnabled();
  });

  it("collapses the output until asked, and shows the final status and time", async () => {
    render(() =><ToolCard item={item({ status: "done", output: "[no output]", startedAt: 1000, endedAt: 3500 })} awaitingApproval={false} onDecide={async () => undefined} />);
    expect(screen.queryByLabelText("Tool output")).not.toBeInTheDocument();
    expect(screen.getByText("done")).toBeInTheDocument();
    expect(screen.getByLabelText("Elapsed time")).toHaveTextContent("2.5 s");
    await userEvent.click(screen.getByRole("button", { name: /Output/ }));
    expect(screen.getByLabelText("Tool output")).toHaveTextContent("[no output]");
  });
});
