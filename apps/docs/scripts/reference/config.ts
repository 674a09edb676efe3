/**
 * The configuration reference, from the effect/Schema ASTs the program decodes its files
 * with: system_config.yaml (systemConfigSchema()) and .project_config.toml
 * (ProjectConfigSchema). Each field's type and constraints come from the AST (a refinement's
 * `message` annotation says what the value must be), its description from the `description`
 * annotation, and its default from what decoding fills in (system_config.yaml) or the
 * `default` annotation (.project_config.toml, whose parser fills the few it has).
 */
import { Option, Schema, SchemaAST } from "effect";
import { blocks, code, pageHeader, table, text, type Lang } from "./markdown.js";

export interface ConfigField {
  /** Dotted path; list items are `[]` (`tools.mcpServers[].name`). */
  path: string;
  type: string;
  required: boolean;
  description: string;
  /** The default as JSON, or undefined when the field has none. */
  defaultJson: string | undefined;
}

/** What a refinement says the value must be (its `message` annotation, ours never read the issue). */
function constraintOf(ast: SchemaAST.AST): string | undefined {
  const message = SchemaAST.getMessageAnnotation(ast);
  if (Option.isNone(message)) return undefined;
  const said = message.value(undefined as never);
  if (typeof said === "string") return said;
  if (typeof said === "object" && said !== null && "message" in said && typeof said.message === "string") return said.message;
  return undefined;
}

function description(ast: SchemaAST.AST): string | undefined {
  return Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(ast));
}

function withoutUndefined(ast: SchemaAST.AST): { ast: SchemaAST.AST; optional: boolean } {
  if (SchemaAST.isUnion(ast)) {
    const kept = ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t));
    if (kept.length < ast.types.length && kept.length === 1 && kept[0] !== undefined) return { ast: kept[0], optional: true };
  }
  return { ast, optional: false };
}

/** The struct a node decodes from: transformations (defaults) read from their `from` side. */
function structOf(ast: SchemaAST.AST): SchemaAST.TypeLiteral | undefined {
  if (SchemaAST.isTransformation(ast)) return structOf(ast.from);
  if (SchemaAST.isRefinement(ast)) return structOf(ast.from);
  if (SchemaAST.isTypeLiteral(ast) && ast.propertySignatures.length > 0) return ast;
  return undefined;
}

function elementOf(ast: SchemaAST.AST): SchemaAST.AST | undefined {
  if (SchemaAST.isRefinement(ast) || SchemaAST.isTransformation(ast)) return elementOf(ast.from);
  if (SchemaAST.isTupleType(ast) && ast.elements.length === 0 && ast.rest.length === 1) return ast.rest[0]?.type;
  return undefined;
}

/** A short type name with the constraints the refinements add. */
export function typeName(ast: SchemaAST.AST): string {
  const notes: string[] = [];
  let node = ast;
  while (SchemaAST.isRefinement(node) || SchemaAST.isTransformation(node)) {
    if (SchemaAST.isRefinement(node)) {
      const said = constraintOf(node);
      if (said !== undefined) notes.unshift(said);
    }
    node = node.from;
  }
  let base: string;
  if (SchemaAST.isStringKeyword(node)) base = "text";
  else if (SchemaAST.isNumberKeyword(node)) base = "number";
  else if (SchemaAST.isBooleanKeyword(node)) base = "true or false";
  else if (SchemaAST.isLiteral(node)) base = JSON.stringify(node.literal);
  else if (SchemaAST.isUnion(node) && node.types.every(SchemaAST.isLiteral)) base = `one of ${node.types.map((t) => (SchemaAST.isLiteral(t) ? String(t.literal) : "")).join(", ")}`;
  else if (elementOf(node) !== undefined) base = structOf(elementOf(node) as SchemaAST.AST) !== undefined ? "list of mappings" : `list of ${typeName(elementOf(node) as SchemaAST.AST)}`;
  else if (SchemaAST.isTypeLiteral(node)) base = "mapping";
  else base = String(node);
  const extra = notes.filter((n) => !/^must be (a number|text|true or false|a mapping)/.test(n));
  return extra.length > 0 ? `${base} (${extra.join("; ")})` : base;
}

function jsonAt(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** What decoding an empty mapping gives for a struct whose fields all have defaults, else undefined. */
function decodedEmpty(ast: SchemaAST.AST): unknown {
  try {
    return Schema.decodeUnknownSync(Schema.make(ast))({});
  } catch {
    return undefined;
  }
}

/**
 * Every field of a schema, depth first. `defaults` is the value decoding gives an input with
 * only the required keys (undefined when the file's defaults live in `default` annotations);
 * a nested struct absent from it (an optional section) gets what decoding `{}` with it gives.
 */
export function configFields(schema: Schema.Schema.AnyNoContext, defaults: unknown): ConfigField[] {
  const out: ConfigField[] = [];
  const visit = (struct: SchemaAST.TypeLiteral, prefix: string, structDefaults: unknown) => {
    for (const signature of struct.propertySignatures) {
      const name = String(signature.name);
      const { ast, optional } = withoutUndefined(signature.type);
      const path = prefix === "" ? name : `${prefix}.${name}`;
      const required = !signature.isOptional && !optional;
      const fromDecoding = required ? undefined : jsonAt(structDefaults, [name]);
      const annotated = Option.getOrUndefined(SchemaAST.getDefaultAnnotation(ast));
      const fallback = fromDecoding !== undefined ? fromDecoding : annotated;
      const nested = structOf(ast);
      const element = elementOf(ast);
      out.push({
        path,
        type: typeName(ast),
        required: required && annotated === undefined,
        description: description(ast) ?? description(signature.type) ?? "",
        // A whole section's default is the sum of its fields' (listed below it).
        defaultJson: fallback === undefined || nested !== undefined ? undefined : JSON.stringify(fallback),
      });
      if (nested !== undefined) visit(nested, path, fromDecoding ?? decodedEmpty(ast));
      else if (element !== undefined) {
        const item = structOf(element);
        if (item !== undefined) visit(item, `${path}[]`, undefined);
      }
    }
  };
  const root = structOf(schema.ast);
  if (root !== undefined) visit(root, "", defaults);
  return out;
}

const WORDS = {
  en: {
    title: "Configuration reference",
    intro:
      "The two files a user edits: an agent's `system_config.yaml` (how the agent behaves) and a project's `.project_config.toml` (models, keys, defaults; mode 0600). Unknown keys in `system_config.yaml` are ignored; a key left empty falls back to its default.",
    system: "system_config.yaml",
    systemWhere: "Where: `<root>/<project>/agents/<agent>/agent_state/system_config.yaml`.",
    project: ".project_config.toml",
    projectWhere: "Where: `<root>/<project>/.project_config.toml`. Edit it with `penguin config model …` or by hand.",
    field: "Field",
    type: "Type",
    required: "Required",
    def: "Default",
    description: "Description",
    yes: "yes",
    long: "(long text, see the file a new agent gets)",
  },
  zh: {
    title: "配置参考",
    intro:
      "用户会编辑的两个文件：agent 的 `system_config.yaml`（agent 的行为）与项目的 `.project_config.toml`（模型、密钥、默认值；权限 0600）。`system_config.yaml` 中未知的键会被忽略，留空的键回落到默认值。",
    system: "system_config.yaml",
    systemWhere: "位置：`<root>/<project>/agents/<agent>/agent_state/system_config.yaml`。",
    project: ".project_config.toml",
    projectWhere: "位置：`<root>/<project>/.project_config.toml`。可用 `penguin config model …` 或手动编辑。",
    field: "字段",
    type: "类型",
    required: "必填",
    def: "默认值",
    description: "说明",
    yes: "是",
    long: "（长文本，见新 agent 的默认文件）",
  },
} as const;

function fieldTable(fields: readonly ConfigField[], lang: Lang): string {
  const w = WORDS[lang];
  return table(
    [w.field, w.type, w.required, w.def, w.description],
    fields.map((f) => [
      code(f.path),
      text(f.type),
      f.required ? w.yes : "",
      f.defaultJson === undefined ? "" : f.defaultJson.length > 60 ? w.long : code(f.defaultJson),
      text(f.description),
    ]),
  );
}

export interface ConfigFacts {
  system: readonly ConfigField[];
  project: readonly ConfigField[];
}

export function configReferencePage(facts: ConfigFacts, lang: Lang): string {
  const w = WORDS[lang];
  return blocks([
    pageHeader(lang, w.title, `${code("systemConfigSchema()")}, ${code("ProjectConfigSchema")} (packages/core/src/state)`, w.intro).trimEnd(),
    "::: v-pre",
    `## ${w.system}`,
    w.systemWhere,
    fieldTable(facts.system, lang),
    `## ${w.project}`,
    w.projectWhere,
    fieldTable(facts.project, lang),
    ":::",
  ]);
}
