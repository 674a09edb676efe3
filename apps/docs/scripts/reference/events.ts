/**
 * The event reference, from the OmniMessage schemas (packages/omnimessage/src/schema.ts):
 * `OmniMessageSchema` is a union of the three envelope families; each family's payload is a
 * union (nested unions flattened) of structs tagged by their `type` literal. The page lists
 * the envelope fields once, then every payload type with its fields and their types.
 */
import { Option, SchemaAST, type Schema } from "effect";
import { typeName } from "./config.js";
import { blocks, code, pageHeader, table, text, type Lang } from "./markdown.js";

export interface PayloadType {
  family: string;
  /** The `type` tag, or the identifier for the untagged session_meta payload. */
  tag: string;
  identifier: string;
  fields: { name: string; type: string; optional: boolean }[];
}

export interface EventFacts {
  envelopeFields: { name: string; type: string; optional: boolean }[];
  families: string[];
  payloads: PayloadType[];
}

function identifierOf(ast: SchemaAST.AST): string {
  return Option.getOrElse(SchemaAST.getIdentifierAnnotation(ast), () => "");
}

function members(ast: SchemaAST.AST): SchemaAST.AST[] {
  return SchemaAST.isUnion(ast) ? ast.types.flatMap(members) : [ast];
}

function fieldsOf(ast: SchemaAST.AST): PayloadType["fields"] {
  if (!SchemaAST.isTypeLiteral(ast)) return [];
  return ast.propertySignatures.map((signature) => {
    const kept = SchemaAST.isUnion(signature.type) ? signature.type.types.filter((t) => !SchemaAST.isUndefinedKeyword(t)) : [signature.type];
    const inner = kept.length === 1 && kept[0] !== undefined ? kept[0] : signature.type;
    return { name: String(signature.name), type: fieldType(inner), optional: signature.isOptional };
  });
}

function fieldType(ast: SchemaAST.AST): string {
  const id = identifierOf(ast);
  // A named set of words (SessionClient) is more use spelled out than named; a named struct stays named.
  const words = SchemaAST.isUnion(ast) && ast.types.every(SchemaAST.isLiteral);
  if (id !== "" && !words) return id;
  if (SchemaAST.isUnion(ast) && !ast.types.every(SchemaAST.isLiteral)) return ast.types.map(fieldType).join(" or ");
  if (SchemaAST.isTypeLiteral(ast) && ast.propertySignatures.length === 0 && ast.indexSignatures.length > 0) return "mapping";
  if (SchemaAST.isTypeLiteral(ast)) return `{ ${fieldsOf(ast).map((f) => `${f.name}${f.optional ? "?" : ""}: ${f.type}`).join(", ")} }`;
  return typeName(ast);
}

function tagOf(ast: SchemaAST.AST): string | undefined {
  if (!SchemaAST.isTypeLiteral(ast)) return undefined;
  const type = ast.propertySignatures.find((s) => s.name === "type");
  return type !== undefined && SchemaAST.isLiteral(type.type) ? String(type.type.literal) : undefined;
}

export function eventFacts(omniMessage: Schema.Schema.Any): EventFacts {
  const envelopes = members(omniMessage.ast);
  const payloads: PayloadType[] = [];
  const families: string[] = [];
  let envelopeFields: EventFacts["envelopeFields"] = [];
  for (const envelope of envelopes) {
    if (!SchemaAST.isTypeLiteral(envelope)) continue;
    const family = tagOf(envelope) ?? identifierOf(envelope);
    families.push(family);
    envelopeFields = fieldsOf(envelope).map((f) => (f.name === "type" ? { ...f, type: "family" } : f.name === "payload" ? { ...f, type: "payload" } : f));
    const payload = envelope.propertySignatures.find((s) => s.name === "payload");
    if (payload === undefined) continue;
    for (const member of members(payload.type)) {
      payloads.push({ family, tag: tagOf(member) ?? identifierOf(member), identifier: identifierOf(member), fields: fieldsOf(member) });
    }
  }
  return { envelopeFields, families, payloads };
}

const WORDS = {
  en: {
    title: "Event reference",
    intro:
      "Every line of a trace, every `--json` line and every SSE event is one OmniMessage envelope. `session_meta` opens a session; `model_msg` carries what the model and the tools said (complete messages and, on live streams only, `partial_*` messages); `event_msg` carries what happened around them.",
    envelope: "The envelope",
    field: "Field",
    type: "Type",
    optional: "Optional",
    yes: "yes",
    family: (f: string) => `Payloads of ${f}`,
    schema: "Schema",
  },
  zh: {
    title: "事件参考",
    intro:
      "trace 的每一行、`--json` 的每一行、每个 SSE 事件，都是一个 OmniMessage 信封。`session_meta` 开启一个会话；`model_msg` 承载模型与工具的输出（完整消息，以及仅在实时流中出现的 `partial_*`）；`event_msg` 承载其间发生的事。",
    envelope: "信封",
    field: "字段",
    type: "类型",
    optional: "可选",
    yes: "是",
    family: (f: string) => `${f} 的 payload`,
    schema: "Schema",
  },
} as const;

export function eventReferencePage(facts: EventFacts, lang: Lang): string {
  const w = WORDS[lang];
  const fieldTable = (fields: PayloadType["fields"]) =>
    table(
      [w.field, w.type, w.optional],
      fields.map((f) => [code(f.name), text(f.type), f.optional ? w.yes : ""]),
    );
  const sections = facts.families.flatMap((family) => [
    `## ${w.family(family)}`,
    ...facts.payloads
      .filter((p) => p.family === family)
      .map((p) => blocks([`### ${p.tag}`, `${w.schema}: ${code(p.identifier)}`, fieldTable(p.fields)]).trimEnd()),
  ]);
  return blocks([
    pageHeader(lang, w.title, code("packages/omnimessage/src/schema.ts"), w.intro).trimEnd(),
    "::: v-pre",
    `## ${w.envelope}`,
    fieldTable(facts.envelopeFields),
    ...sections,
    ":::",
  ]);
}
