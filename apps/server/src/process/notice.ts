/**
 * The framed startup notice: the one thing the server prints (through the `out` callback
 * it is given). It names the URL and the data root and, until the admin changes it, the
 * initial password and the file that keeps it.
 */
export function startupNotice(p: { url: string; root: string; password: string | undefined; passwordFile: string; web: boolean }): string[] {
  const lines = [
    p.web ? "PenguinHarness web" : "PenguinHarness server",
    "",
    `URL:        ${p.url}`,
    `Data root:  ${p.root}`,
  ];
  if (p.password !== undefined) {
    lines.push("", "Sign in as user  admin  with the initial password:", `    ${p.password}`, `(kept in ${p.passwordFile}`, " until you change it; this notice shows it until then)");
  }
  const width = Math.max(...lines.map((l) => [...l].length));
  const bar = "─".repeat(width + 2);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l}${" ".repeat(width - [...l].length)} │`), `└${bar}┘`];
}
