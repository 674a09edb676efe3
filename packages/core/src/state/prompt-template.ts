/**
 * `{{NAME}}` placeholder filling, in a single pass.
 *
 * Every placeholder is replaced in one left-to-right scan of the template, and a replacement
 * is never scanned again: text that came from files (AGENTS.md, skill descriptions, memory
 * indexes) may contain `{{...}}` and stays exactly as written. Unknown names are left as is.
 * A placeholder that stands alone on its line and expands to nothing takes its line (and one
 * following blank line) with it, so a disabled section leaves no gap. Pure.
 */
const PLACEHOLDER = /^\{\{([A-Z][A-Z0-9_]*)\}\}(\r?\n(?:\r?\n)?)|\{\{([A-Z][A-Z0-9_]*)\}\}/gm;

export function fillPlaceholders(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(
    PLACEHOLDER,
    (match: string, lineName: string | undefined, lineEnd: string | undefined, inlineName: string | undefined) => {
      const name = lineName ?? inlineName ?? "";
      const value = Object.hasOwn(values, name) ? values[name] : undefined;
      if (value === undefined) return match;
      if (lineName !== undefined) return value === "" ? "" : value + (lineEnd ?? "");
      return value;
    },
  );
}
