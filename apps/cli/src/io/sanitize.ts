/**
 * Text from a model or a tool, made safe to print for a human: escape sequences removed
 * (a command's colours, or a model trying to move the cursor or set the window title), and
 * every other control character but tab and newline dropped. Human output therefore never
 * carries ANSI codes it did not add itself, and `--json` output, which is JSON-escaped,
 * never goes through here.
 */

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST), and two-byte ESC sequences.
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
// C0 controls except tab and newline, DEL, and C1 controls; a lone CR becomes nothing.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function sanitizeForTerminal(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(ESCAPES, "").replace(CONTROLS, "");
}
