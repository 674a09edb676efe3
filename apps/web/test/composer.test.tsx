// The composer: Enter/Shift+Enter, steer and queue while running, the slash menu, pasted
// files, and that Escape never wipes the draft.
import { describe, expect, it, vi } from "vitest";
import { createSignal } from "solid-js";
import { fireEvent, render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { Composer, EMPTY_DRAFT, type Draft, type SendKind } from "../src/features/chat/Composer";
import { composerKeyAction } from "../src/features/chat/composer-keys";
import { slashItems } from "../src/features/chat/slash-commands";

function Harness(props: { running?: boolean; onSend(kind: SendKind, d: Draft): void; locked?: string }) {
  const [draft, setDraft] = createSignal<Draft>(EMPTY_DRAFT);
  return <Composer draft={draft()} onDraft={setDraft} onSend={(k) => props.onSend(k, draft())} onStop={() => undefined} running={props.running ?? false} slash={slashItems([{ name: "pdf", description: "Work with PDFs" }])} locked={props.locked} />;
}

const key = (k: Partial<Parameters<typeof composerKeyAction>[0]>) => ({ key: "Enter", shiftKey: false, altKey: false, ctrlKey: false, metaKey: false, isComposing: false, ...k });

describe("composer keys", () => {
  it("maps keys to actions", () => {
    expect(composerKeyAction(key({}), { running: false, menuOpen: false })).toBe("send");
    expect(composerKeyAction(key({ shiftKey: true }), { running: false, menuOpen: false })).toBe("newline");
    expect(composerKeyAction(key({}), { running: true, menuOpen: false })).toBe("steer");
    expect(composerKeyAction(key({ altKey: true }), { running: true, menuOpen: false })).toBe("queue");
    expect(composerKeyAction(key({ isComposing: true }), { running: false, menuOpen: false })).toBe("none");
    expect(composerKeyAction(key({ key: "Escape" }), { running: false, menuOpen: false })).toBe("none");
    expect(composerKeyAction(key({ key: "ArrowDown" }), { running: false, menuOpen: true })).toBe("menu-next");
    expect(composerKeyAction(key({ key: "Tab" }), { running: false, menuOpen: true })).toBe("menu-pick");
  });
});

describe("Composer", () => {
  it("sends on Enter and adds a new line on Shift+Enter", async () => {
    const onSend = vi.fn();
    render(() =><Harness onSend={onSend} />);
    const box = screen.getByRole("combobox", { name: "Message" });
    await userEvent.type(box, "first line{Shift>}{Enter}{/Shift}second");
    expect(box).toHaveValue("first line\nsecond");
    expect(onSend).not.toHaveBeenCalled();
    await userEvent.type(box, "{Enter}");
    expect(onSend).toHaveBeenCalledTimes(1);
    expect(onSend.mock.calls[0]?.[0]).toBe("send");
    expect(onSend.mock.calls[0]?.[1].text).toBe("first line\nsecond");
  });

  it("does not send an empty message, and keeps the text on Escape", async () => {
    const onSend = vi.fn();
    render(() =><Harness onSend={onSend} />);
    const box = screen.getByRole("combobox", { name: "Message" });
    await userEvent.type(box, "{Enter}");
    expect(onSend).not.toHaveBeenCalled();
    await userEvent.type(box, "keep me{Escape}");
    expect(box).toHaveValue("keep me");
  });

  it("steers on Enter and queues on Alt+Enter while a task runs", async () => {
    const onSend = vi.fn();
    render(() =><Harness running onSend={onSend} />);
    const box = screen.getByRole("combobox", { name: "Message" });
    await userEvent.type(box, "go faster{Enter}");
    await userEvent.type(box, "{Alt>}{Enter}{/Alt}");
    expect(onSend.mock.calls.map((c) => c[0])).toEqual(["steer", "queue"]);
    expect(screen.getByRole("button", { name: "Stop" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Queue" })).toBeInTheDocument();
  });

  it("opens the slash menu, moves with the arrows and completes with Enter", async () => {
    const onSend = vi.fn();
    render(() =><Harness onSend={onSend} />);
    const box = screen.getByRole("combobox", { name: "Message" });
    await userEvent.type(box, "/");
    const options = screen.getAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual(["/compactCompact the context now", "/goalWork on it in rounds until done: /goal [budget] objective", "/modelChoose the model", "/pdfWork with PDFs"]);
    await userEvent.type(box, "{ArrowDown}{ArrowDown}{ArrowDown}{Enter}");
    expect(box).toHaveValue("/pdf ");
    expect(screen.queryByRole("listbox")).not.toBeInTheDocument();
    expect(onSend).not.toHaveBeenCalled();
    await userEvent.type(box, "summarise{Enter}");
    expect(onSend.mock.calls[0]?.[1].text).toBe("/pdf summarise");
  });

  it("attaches pasted images and lets them be removed", async () => {
    render(() =><Harness onSend={() => undefined} />);
    const box = screen.getByRole("combobox", { name: "Message" });
    const file = new File([new Uint8Array([137, 80, 78, 71])], "shot.png", { type: "image/png" });
    fireEvent.paste(box, { clipboardData: { files: [file] } });
    expect(await screen.findByText("shot.png")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Remove shot.png" }));
    expect(screen.queryByText("shot.png")).not.toBeInTheDocument();
  });

  it("refuses to send while locked and says why", async () => {
    const onSend = vi.fn();
    render(() =><Harness onSend={onSend} locked="The model rejected its credentials." />);
    await userEvent.type(screen.getByRole("combobox", { name: "Message" }), "hello{Enter}");
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.getByRole("alert")).toHaveTextContent("rejected its credentials");
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
  });
});
