/**
 * Markdown helpers for the generated reference pages. VitePress compiles every page as a Vue
 * template, so text taken from the code must not open a tag (`<sid>`) or an interpolation
 * (`{{CWD}}`); table cells must not break on `|`. Everything from the code goes through
 * `text` (escaped prose) or `code` (an inline code span); the page header says the page is
 * generated and names the command that rewrites it.
 */

export type Lang = "en" | "zh";

export const REGENERATE_COMMAND = "npm run generate --prefix apps/docs";

/** Prose from the code, safe in a paragraph or a table cell. */
export function text(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\{\{/g, "&#123;&#123;")
    .replace(/\}\}/g, "&#125;&#125;")
    .replace(/\|/g, "\\|")
    .replace(/([*_`[\]\\])/g, (m) => (m === "\\" ? "\\\\" : `\\${m}`))
    .replace(/\r?\n/g, "<br>");
}

/** An inline code span; Vue leaves code spans alone once VitePress marks them v-pre. */
export function code(value: string): string {
  const safe = value.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  return safe.includes("`") ? `\`\` ${safe} \`\`` : `\`${safe}\``;
}

export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return "";
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

/**
 * The one line atop every Chinese reference page: headings and table heads are translated here, but
 * each description is the code's own text (commander help, schema annotations, OpenAPI summaries),
 * written once in English; translating it in the generator would be a second copy that drifts.
 */
export const ZH_LANGUAGE_NOTE = "> 本页的标题与表头为中文；各项说明文字直接取自代码，因此为英文。";

/** The page's opening: frontmatter, title, the generated-file notice and a short intro. */
export function pageHeader(lang: Lang, title: string, source: string, intro: string): string {
  const notice =
    lang === "en"
      ? `Generated from ${source} by \`${REGENERATE_COMMAND}\`: do not edit by hand. A test in \`npm test\` fails when this page differs from what the code generates.`
      : `由 \`${REGENERATE_COMMAND}\` 从 ${source} 生成，请勿手改。页面与代码生成的结果不一致时，\`npm test\` 中的检查会失败。`;
  return `---\noutline: [2, 3]\n---\n\n<!-- generated: ${REGENERATE_COMMAND} -->\n\n# ${title}\n\n${lang === "zh" ? `${ZH_LANGUAGE_NOTE}\n\n` : ""}::: info\n${notice}\n:::\n\n${intro}\n`;
}

/** Joins blocks with one blank line and ends the page with a newline. */
export function blocks(parts: readonly string[]): string {
  return `${parts.filter((p) => p !== "").join("\n\n")}\n`;
}
