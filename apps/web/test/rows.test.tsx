// Stream rows: the retry countdown with "Retry now", the per-task stats line with cost,
// and subagent rows linking to the child's stream.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { TestRouter } from "./helpers/test-router";
import { RequestErrorRow } from "../src/features/chat/rows/RequestErrorRow";
import { StatsLine, SubagentRow } from "../src/features/chat/rows/EventRows";

afterEach(() => vi.useRealTimers());

describe("RequestErrorRow", () => {
  it("counts down to the retry and offers Retry now and Give up", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const now = Date.now();
    const onRetryNow = vi.fn(async () => undefined);
    render(() =>
      <RequestErrorRow
        item={{ kind: "request_error", id: "r", status: "failed", message: "HTTP 503 overloaded", attempt: 2, retryInMs: 8000, retryAt: now + 8000, superseded: false }}
        active
        onRetryNow={onRetryNow}
        onGiveUp={async () => undefined}
      />,
    );
    expect(screen.getByText(/retrying in 8\.0 s/)).toBeInTheDocument();
    vi.advanceTimersByTime(3000);
    expect(screen.getByText(/retrying in 5\.0 s/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Retry now" }));
    expect(onRetryNow).toHaveBeenCalledTimes(1);
    expect(screen.getByRole("button", { name: "Give up" })).toBeInTheDocument();
  });

  it("shows no controls once a later request began", () => {
    render(() =><RequestErrorRow item={{ kind: "request_error", id: "r", status: "timeout", message: "no progress", attempt: 1, retryInMs: 1000, retryAt: 1, superseded: true }} active={false} onRetryNow={async () => undefined} onGiveUp={async () => undefined} />);
    expect(screen.queryByRole("button")).not.toBeInTheDocument();
    expect(screen.getByText("retried")).toBeInTheDocument();
  });
});

describe("StatsLine and SubagentRow", () => {
  it("shows tokens, tokens per second, time and cost", () => {
    render(() =>
      <StatsLine
        item={{ kind: "stats", id: "s", running: false, completed: true, stats: { requests: 2, tokens: { cache_read: 1_000_000, cache_write: 500_000, output: 2000, total: 1_502_000 }, durationMs: 4000, generationMs: 2000 } }}
        pricing={{ cacheRead: 0.1, cacheWrite: 1, output: 10 }}
      />,
    );
    expect(screen.getByLabelText("Task statistics")).toHaveTextContent("1.50M tokens (2.0k out) · 1000.0 tok/s · 4.0 s · $0.620 · 2 requests");
  });

  it("links a subagent row to the child's stream", () => {
    render(() =>
      <TestRouter>
        <SubagentRow item={{ kind: "subagent", id: "x", childId: "session-2026-01-01-00-00-00-abcdef01", messages: 4, preview: "working on it", active: true }} />
      </TestRouter>,
    );
    expect(screen.getByRole("link", { name: "Open stream" })).toHaveAttribute("href", "/chat/session-2026-01-01-00-00-00-abcdef01");
    expect(screen.getByText("working on it")).toBeInTheDocument();
  });
});
