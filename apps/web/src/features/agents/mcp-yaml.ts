/**
 * MCP servers inside `system_config.yaml`, edited as text. The web app carries no YAML
 * library, and the server keeps the file exactly as sent (comments included) after
 * validating it with core's parser, so the form works on lines: it reads the names of the
 * entries under `tools.mcpServers` and appends a new entry in the file's own block style.
 * Anything the line scan cannot place is refused with a message, never written blindly;
 * the server's validation catches the rest on save.
 */

export interface McpServerForm {
  name: string;
  transport: "stdio" | "http";
  command: string;
  args: string[];
  url: string;
}

const yamlString = (s: string) => JSON.stringify(s);

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Where `tools:` → `mcpServers:` sits: its line index and indent, if found. */
function findMcpKey(lines: string[]): { index: number; indent: number; inlineEmpty: boolean } | undefined {
  let toolsIndent: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const indent = indentOf(line);
    if (toolsIndent === undefined) {
      if (indent === 0 && /^tools:\s*(#.*)?$/.test(line)) toolsIndent = 0;
      continue;
    }
    if (indent <= toolsIndent) return undefined;
    const m = /^(\s*)mcpServers:\s*(\[\s*\])?\s*(#.*)?$/.exec(line);
    if (m !== null) return { index: i, indent, inlineEmpty: m[2] !== undefined };
  }
  return undefined;
}

/** The names of the MCP servers configured (line scan of `- name: X` entries). */
export function listMcpServers(yaml: string): string[] {
  const lines = yaml.split("\n");
  const key = findMcpKey(lines);
  if (key === undefined || key.inlineEmpty) return [];
  const names: string[] = [];
  for (let i = key.index + 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (indentOf(line) <= key.indent && !line.trimStart().startsWith("-")) break;
    if (indentOf(line) < key.indent) break;
    const m = /^\s*-\s*name:\s*(.+?)\s*$/.exec(line);
    if (m?.[1] !== undefined) names.push(m[1].replace(/^["']|["']$/g, ""));
  }
  return names;
}

/** The `config` object the server and core expect for one server. */
export function mcpConfigOf(form: McpServerForm): Record<string, unknown> {
  return form.transport === "http" ? { url: form.url } : { command: form.command, args: form.args };
}

/** The YAML text with one more MCP server; throws with a readable message when it cannot place it. */
export function addMcpServer(yaml: string, form: McpServerForm): string {
  if (!/^[A-Za-z0-9_-]+$/.test(form.name)) throw new Error("The name may use letters, digits, - and _ only.");
  if (listMcpServers(yaml).includes(form.name)) throw new Error(`An MCP server named ${form.name} already exists.`);
  const lines = yaml.split("\n");
  const key = findMcpKey(lines);
  if (key === undefined) throw new Error("Could not find tools.mcpServers in system_config.yaml; add the entry in the Runtime tab by hand.");
  let dashIndent = key.indent + 2;
  for (let i = key.index + 1; i < lines.length && !key.inlineEmpty; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (line.trimStart().startsWith("-") && indentOf(line) >= key.indent) dashIndent = indentOf(line);
    break;
  }
  const pad = " ".repeat(dashIndent);
  const config = form.transport === "http" ? `{ url: ${yamlString(form.url)} }` : `{ command: ${yamlString(form.command)}, args: [${form.args.map(yamlString).join(", ")}] }`;
  const entry = [`${pad}- name: ${form.name}`, `${pad}  config: ${config}`];
  if (key.inlineEmpty) {
    lines.splice(key.index, 1, `${" ".repeat(key.indent)}mcpServers:`, ...entry);
    return lines.join("\n");
  }
  let end = key.index + 1;
  for (let i = key.index + 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "") continue;
    if (indentOf(line) < key.indent || (indentOf(line) === key.indent && !line.trimStart().startsWith("-"))) break;
    end = i + 1;
  }
  lines.splice(end, 0, ...entry);
  return lines.join("\n");
}
