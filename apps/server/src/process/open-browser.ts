/**
 * Opening the browser for `penguin web`: `open` on macOS, `cmd /c start` on Windows,
 * `xdg-open` elsewhere; detached, silent, and any failure (no opener, no display) ignored,
 * because the URL is printed anyway.
 */
import { spawn } from "node:child_process";

export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): void {
  const [cmd, args] = platform === "darwin" ? ["open", [url]] : platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // no opener: the printed URL is enough
  }
}
