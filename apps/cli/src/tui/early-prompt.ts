/**
 * The chat's first frame: pi-tui loaded, the screen drawn with its status line saying the
 * session is opening, and keys taken by the editor (a line submitted waits, Ctrl-C clears it
 * or arms the exit). tui-chat.ts draws it before opening the session.
 *
 * The bundle's loader can draw it even earlier, before the whole CLI script and its code cache
 * are read (src/launch/chat-prompt.ts, a small ES module of its own): it then leaves the drawn
 * prompt on `globalThis` under a registered symbol, and the chat in the CLI script claims it
 * instead of drawing a second one. The two are separate bundles, so what passes between them is
 * plain objects (the screen, the theme, the early input), never a class both must share; pi-tui
 * is one ES module instance for both (vendor/, loaded by URL). A prompt nobody claims (the
 * command line had an error) is taken down before the error is printed, or at exit, so the
 * terminal is restored.
 */
import { interruptAction } from "../chat/interrupt.js";
import { colorsFor } from "../io/colors.js";
import type { EarlyInput } from "./chat-loop.js";
import { loadPiTui, piTui } from "./pi-tui.js";
import { buildScreen, type Screen } from "./screen.js";
import { tuiTheme, type TuiTheme } from "./theme.js";

export interface EarlyPrompt {
  screen: Screen;
  theme: TuiTheme;
  early: EarlyInput;
  /** Ends the early key handling (the chat's own takes over). */
  stopEarly(): void;
}

const HANDOFF = Symbol.for("penguin.chat.earlyPrompt");
interface Published {
  prompt: EarlyPrompt;
  /** Hands the prompt over: true when it is still on the screen (nothing took it down). */
  release(): boolean;
}
type Handoff = { [HANDOFF]?: Published };

/** Loads pi-tui, draws the first frame and takes keys. */
export async function drawEarlyPrompt(): Promise<EarlyPrompt> {
  await loadPiTui();
  const theme = tuiTheme(colorsFor(process.stdout));
  const screen = buildScreen(theme);
  screen.tui.start();
  screen.tui.renderNow();
  const early: EarlyInput = { lines: [], exitArmed: false, exitRequested: false };
  return { screen, theme, early, stopEarly: takeEarlyInput(screen, early) };
}

/**
 * Leaves a drawn prompt for the chat to claim. Until it is claimed, the first line written to
 * stderr (a usage error of the command line, a warning of Node's) takes the prompt down first,
 * so the terminal is restored and the line is printed below the frame, not across it; so does
 * the process's exit.
 */
export function publishEarlyPrompt(prompt: EarlyPrompt): void {
  const stderr = process.stderr;
  const ownWrite = Object.getOwnPropertyDescriptor(stderr, "write");
  let onScreen = true;
  const restoreWrite = (): void => {
    if (ownWrite === undefined) Reflect.deleteProperty(stderr, "write");
    else Object.defineProperty(stderr, "write", ownWrite);
    process.off("exit", takeDown);
  };
  function takeDown(): void {
    if (!onScreen) return;
    onScreen = false;
    restoreWrite();
    prompt.stopEarly();
    prompt.screen.tui.stop();
  }
  Object.defineProperty(stderr, "write", {
    value: (...args: Parameters<typeof stderr.write>) => {
      takeDown();
      return stderr.write(...args);
    },
    configurable: true,
    writable: true,
  });
  process.once("exit", takeDown);
  (globalThis as Handoff)[HANDOFF] = {
    prompt,
    release() {
      if (!onScreen) return false;
      restoreWrite();
      return true;
    },
  };
}

/** The prompt the loader drew, once, if it is still on the screen (else undefined: draw one). */
export function claimEarlyPrompt(): EarlyPrompt | undefined {
  const published = (globalThis as Handoff)[HANDOFF];
  delete (globalThis as Handoff)[HANDOFF];
  return published?.release() === true ? published.prompt : undefined;
}

/** Keys while the session opens: typing is the editor's; Enter keeps the line; Ctrl-C as in the chat. */
function takeEarlyInput(screen: Screen, early: EarlyInput): () => void {
  const { editor, tui } = screen;
  editor.onSubmit = (text) => {
    if (text.trim() !== "") early.lines.push(text);
  };
  const stop = tui.addInputListener((data) => {
    if (!piTui().matchesKey(data, "ctrl+c")) {
      early.exitArmed = false;
      queueMicrotask(() => tui.renderNow());
      return undefined;
    }
    switch (interruptAction({ approvalPending: false, taskRunning: false, lineHasText: editor.getText() !== "", exitArmed: early.exitArmed })) {
      case "clear-line":
        editor.setText("");
        break;
      case "exit":
        early.exitRequested = true;
        screen.note("(leaving once the session is open)");
        break;
      default:
        early.exitArmed = true;
        screen.note("(press Ctrl-C again to exit, or type /exit)");
    }
    tui.requestRender();
    return { consume: true };
  });
  return () => {
    stop();
    editor.onSubmit = undefined;
  };
}
