// Goal mode on screen: the round banner and the final row (one tone per outcome), the
// header chip, and the composer's + menu (keyboard: arrows, Escape back to the button) whose
// "Goal…" adds a goal panel with a budget field, plus `/goal` typed in the box.
import { describe, expect, it, vi } from "vitest";
import { createSignal } from "solid-js";
import { render, screen, within } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import type { GoalOutcome } from "@penguin/omnimessage";
import { Composer, EMPTY_DRAFT, type Draft, type SendKind } from "../src/features/chat/Composer";
import { GoalChip, GoalFinishedRow, GoalRoundRow } from "../src/features/chat/rows/GoalRows";
import { SessionHeader } from "../src/features/chat/SessionHeader";
import { slashItems } from "../src/features/chat/slash-commands";

function Harness(props: { running?: boolean; onSend(kind: SendKind, d: Draft): void }) {
  const [draft, setDraft] = createSignal<Draft>(EMPTY_DRAFT);
  return <Composer draft={draft()} onDraft={setDraft} onSend={(k) => props.onSend(k, draft())} onStop={() => undefined} running={props.running ?? false} slash={slashItems([])} />;
}

describe("goal rows", () => {
  it("draws a round banner with tokens used of the budget, and the block on demand", async () => {
    render(() =><GoalRoundRow item={{ kind: "goal_round", id: "g", round: 2, used: 12_345, budget: 500_000, goalFile: "/s/GOAL.yaml", body: "round: 2\nRules:\n- keep going" }} />);
    const row = screen.getByRole("group", { name: "Goal · round 2" });
    expect(row).toHaveTextContent("used 12k of 500k tokens");
    expect(screen.queryByText(/keep going/)).not.toBeInTheDocument();
    await userEvent.click(within(row).getByRole("button", { name: /Goal · round 2/ }));
    expect(screen.getByText(/keep going/)).toBeInTheDocument();
  });

  it("says when a round has no limit", () => {
    render(() =><GoalRoundRow item={{ kind: "goal_round", id: "g", round: 1, used: 0, budget: null, goalFile: undefined, body: "" }} />);
    expect(screen.getByRole("group", { name: "Goal · round 1" })).toHaveTextContent("used 0 tokens (no limit)");
  });

  it.each<[GoalOutcome, RegExp]>([
    ["complete", /Goal complete · 2 rounds · 3\.4k tokens used/],
    ["blocked", /Goal blocked: the agent needs your input/],
    ["budget_limited", /Goal stopped: the token budget is spent/],
    ["aborted", /Goal aborted/],
  ])("tells how a goal ended: %s", (outcome, text) => {
    render(() =><GoalFinishedRow item={{ kind: "goal_finished", id: "f", outcome, rounds: 2, tokensUsed: 3400 }} />);
    const row = screen.getByRole("group", { name: "Goal result" });
    expect(row).toHaveTextContent(text);
    expect(row).toHaveAttribute("data-outcome", outcome);
  });

  it("shows the chip in the header while a goal runs", () => {
    const [running, setRunning] = createSignal(true);
    render(() => (
      <SessionHeader
        session={undefined}
        title="Tests"
        connection="open"
        running={running()}
        goal={running() ? { objective: "make the tests pass", status: "active", budget: 2_000_000, used: 41_000, round: 3 } : undefined}
        details={false}
        onDetails={() => undefined}
        onPatch={async () => undefined}
      />
    ));
    expect(screen.getByRole("status", { name: "Goal progress" })).toHaveTextContent("Goal: make the tests pass — round 3, used 41k of 2.00M tokens");
    setRunning(false);
    expect(screen.queryByRole("status", { name: "Goal progress" })).not.toBeInTheDocument();
    render(() =><GoalChip goal={{ objective: undefined, status: "active", budget: undefined, used: 0, round: 0 }} />);
    expect(screen.getAllByRole("status", { name: "Goal progress" }).at(-1)).toHaveTextContent("Goal: … — starting");
  });
});

describe("Composer goal controls", () => {
  it("opens the + menu, moves with the arrows and closes on Escape back to the button", async () => {
    render(() =><Harness onSend={() => undefined} />);
    const plus = screen.getByRole("button", { name: "Add an image, a file or a goal" });
    expect(plus).toHaveAttribute("aria-haspopup", "menu");
    plus.focus();
    await userEvent.keyboard("{Enter}");
    const menu = screen.getByRole("menu", { name: "Add" });
    expect(within(menu).getAllByRole("menuitem").map((i) => i.textContent?.trim())).toEqual(["Image…", "File…", "Goal…"]);
    expect(within(menu).getByRole("menuitem", { name: "Image…" })).toHaveFocus();
    await userEvent.keyboard("{ArrowDown}{ArrowDown}");
    expect(within(menu).getByRole("menuitem", { name: "Goal…" })).toHaveFocus();
    await userEvent.keyboard("{ArrowDown}");
    expect(within(menu).getByRole("menuitem", { name: "Image…" })).toHaveFocus();
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
    expect(plus).toHaveFocus();
  });

  it("adds a goal panel whose budget travels with the message, and refuses a bad budget", async () => {
    const onSend = vi.fn();
    render(() =><Harness onSend={onSend} />);
    const box = screen.getByRole("combobox", { name: "Message" });
    await userEvent.type(box, "make the tests pass");
    await userEvent.click(screen.getByRole("button", { name: "Add an image, a file or a goal" }));
    await userEvent.click(screen.getByRole("menuitem", { name: "Goal…" }));
    const panel = screen.getByRole("group", { name: "Goal" });
    const budget = within(panel).getByLabelText("Budget");
    expect(budget).toHaveFocus();
    await userEvent.type(budget, "lots");
    expect(within(panel).getByRole("alert")).toHaveTextContent("token count");
    expect(budget).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByRole("button", { name: "Start goal" })).toBeDisabled();
    await userEvent.clear(budget);
    await userEvent.type(budget, "500k{Enter}");
    expect(onSend).toHaveBeenCalledTimes(1);
    expect(onSend.mock.calls[0]?.[1]).toMatchObject({ text: "make the tests pass", goal: { budget: "500k" } });
    await userEvent.click(within(panel).getByRole("button", { name: "Remove goal" }));
    expect(screen.queryByRole("group", { name: "Goal" })).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send" })).toBeEnabled();
  });

  it("labels Send as a goal for `/goal …`, and queues a goal instead of steering while a task runs", async () => {
    const onSend = vi.fn();
    const { unmount } = render(() =><Harness onSend={onSend} />);
    await userEvent.type(screen.getByRole("combobox", { name: "Message" }), "/goal 2m ship it");
    expect(screen.getByRole("button", { name: "Start goal" })).toBeEnabled();
    unmount();
    render(() =><Harness running onSend={onSend} />);
    const box = screen.getByRole("combobox", { name: "Message" });
    await userEvent.type(box, "/goal ship it{Enter}");
    expect(onSend.mock.calls.at(-1)?.[0]).toBe("queue");
    expect(screen.getByRole("button", { name: "Steer" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Queue goal" })).toBeEnabled();
  });
});
