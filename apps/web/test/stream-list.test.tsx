// The stream list mounts only the newest page of rows, and offers earlier ones on demand.
import { describe, expect, it } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { TestRouter } from "./helpers/test-router";
import { PAGE, StreamList } from "../src/features/chat/StreamList";
import type { ViewItem } from "../src/lib/stream/view-model";

const items: ViewItem[] = Array.from({ length: 1000 }, (_, i) => ({ kind: "notice", id: `n${i}`, tag: "summary", title: `Row ${i}`, body: "" }));
const actions = { decide: async () => undefined, retryNow: async () => undefined, giveUp: async () => undefined };

describe("StreamList", () => {
  it("mounts the newest page only, then earlier pages on request", async () => {
    const { container } = render(() =>
      <TestRouter>
        <StreamList items={items} approvals={[]} running={false} pricing={undefined} actions={actions} />
      </TestRouter>,
    );
    expect(container.querySelectorAll(".stream-row")).toHaveLength(PAGE);
    expect(screen.getByText("Row 999")).toBeInTheDocument();
    expect(screen.queryByText("Row 0")).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: `Show earlier messages (${1000 - PAGE} more)` }));
    expect(container.querySelectorAll(".stream-row")).toHaveLength(2 * PAGE);
  });

  it("shows Allow/Deny for an approval whose call is not drawn yet", () => {
    render(() =>
      <TestRouter>
        <StreamList items={[]} approvals={[{ toolCallId: "c1", toolCall: { type: "tool_call", role: "assistant", name: "write_file", arguments: '{"path":"a.txt"}', tool_call_id: "c1" } }]} running pricing={undefined} actions={actions} />
      </TestRouter>,
    );
    expect(screen.getByRole("button", { name: "Allow" })).toBeInTheDocument();
    expect(screen.getByText("a.txt")).toBeInTheDocument();
  });
});
