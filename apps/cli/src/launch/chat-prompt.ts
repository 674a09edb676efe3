/**
 * apps/cli/bundle/chat-prompt.js: the first frame of `penguin chat` on a terminal, drawn by the
 * loader (bundle-main.ts) before it reads the whole CLI script and its V8 code cache. That
 * script is ~3 MB with a ~2 MB cache for the chat, and deserialising the cache alone is 20-40 ms
 * of the main thread that the prompt needed none of: this small ES module holds only pi-tui's
 * loading and the screen (tui/early-prompt.ts), so the editor takes keys first, and the chat in
 * the CLI script claims the drawn prompt instead of drawing its own (tui/tui-chat.ts).
 *
 * Keys typed while the CLI script loads are read by the editor as soon as it is loaded, as keys
 * typed while the session opens are.
 */
import { drawEarlyPrompt, publishEarlyPrompt } from "../tui/early-prompt.js";

publishEarlyPrompt(await drawEarlyPrompt());
