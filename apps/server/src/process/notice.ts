/**
 * The framed startup notice: the one thing the server prints (through the `out` callback
 * it is given). It names the URL and the data root and, until the admin changes it, the
 * initial password and the file that keeps it, and whether commands run in the bwrap
 * sandbox (when they do not, why not: an operator must see that at start).
 */
export function startupNotice(p: {
  url: string;
  root: string;
  password: string | undefined;
  passwordFile: string;
  web: boolean;
  sandbox: { available: boolean; enabled: boolean; network: boolean; reason?: string };
}): string[] {
  const lines = [
    p.web ? "PenguinHarness web" : "PenguinHarness server",
    "",
    `URL:        ${p.url}`,
    `Data root:  ${p.root}`,
    `Commands:   ${sandboxLine(p.sandbox)}`,
  ];
  if (p.password !== undefined) {
    lines.push("", "Sign in as user  admin  with the initial password:", `    ${p.password}`, `(kept in ${p.passwordFile}`, " until you change it; this notice shows it until then)");
  }
  const width = Math.max(...lines.map((l) => [...l].length));
  const bar = "─".repeat(width + 2);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l}${" ".repeat(width - [...l].length)} │`), `└${bar}┘`];
}

function sandboxLine(s: { available: boolean; enabled: boolean; network: boolean; reason?: string }): string {
  if (s.enabled) return `sandboxed with bwrap (network ${s.network ? "allowed" : "off"})`;
  if (!s.available) return `UNSANDBOXED: ${s.reason ?? "bwrap cannot run here"}`;
  return "UNSANDBOXED: the sandbox is turned off";
}
