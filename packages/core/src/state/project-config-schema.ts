/**
 * The shape of a parsed `.project_config.toml` as an effect/Schema, with a `description` on
 * every field and a `default` where the parser fills one in. The parser (project-config.ts)
 * reads the TOML field by field for its line-precise errors; its result is then checked
 * against this schema with excess properties refused, so a field the parser learns to read
 * cannot be missing here, and the generated configuration reference (apps/docs) walks this
 * schema's AST.
 */
import { Schema } from "effect";
import { CLIENT_TYPES, THINKING_LEVELS } from "@penguin/models";

const optional = <S extends Schema.Schema.AnyNoContext>(schema: S) => Schema.optionalWith(schema, { exact: true });
const text = (description: string) => Schema.String.annotations({ description });

export const APPROVAL_MODES = ["allow-all", "deny-all", "read-only", "always-ask"] as const;

const ModelRefSchema = (description: string) =>
  Schema.mutable(
    Schema.Struct({
      provider: text("Provider of the model entry."),
      model_id: text("Model id of the entry."),
    }),
  ).annotations({ description });

const PricingSchema = Schema.mutable(
  Schema.Struct({
    unit: Schema.Literal("usd_per_mtok").annotations({ description: "The pricing unit: USD per million tokens.", default: "usd_per_mtok" }),
    cache_read: optional(Schema.Number.annotations({ description: "USD per million cached input tokens." })),
    cache_write: optional(Schema.Number.annotations({ description: "USD per million uncached input tokens." })),
    output: optional(Schema.Number.annotations({ description: "USD per million output tokens." })),
  }),
).annotations({ description: "Prices used by `penguin usage` and the server's usage views." });

const ModelEntrySchema = Schema.mutable(
  Schema.Struct({
    provider: text("Provider name, e.g. openai, anthropic, deepseek, or your own."),
    model_id: text("Model id as the provider names it."),
    client_type: optional(Schema.Literal(...CLIENT_TYPES).annotations({ description: "Wire protocol (openai and ant-messages are read as openai-chat and anthropic-messages)." })),
    base_url: optional(text("Protocol root, e.g. https://api.openai.com/v1.")),
    api_key: optional(text("API key, sent only to this entry's base URL.")),
    keyless: optional(Schema.Boolean.annotations({ description: "The endpoint takes no key (a local Ollama or vLLM): none is sent, not even from the environment." })),
    context_window: optional(Schema.Number.annotations({ description: "Context window in tokens." })),
    max_tokens: optional(Schema.Number.annotations({ description: "Output cap per request." })),
    display_name: optional(text("Name shown in lists.")),
    vision: optional(Schema.Boolean.annotations({ description: "The model reads images." })),
    fast_mode: optional(Schema.Boolean.annotations({ description: "Ask for the provider's priority tier." })),
    pricing: optional(PricingSchema),
  }),
).annotations({ description: "One model the project can use: the explicit (provider, model_id) pair and how to reach it." });

const PolicyRuleSchema = Schema.mutable(
  Schema.Struct({
    name: text("The rule's name, shown when it forbids a command."),
    pattern: text("A regular expression matched against the command."),
    description: optional(text("Why the rule exists.")),
    enabled: optional(Schema.Boolean.annotations({ description: "Set false to keep the rule but not apply it." })),
  }),
).annotations({ description: "A command the model may never run." });

export const ProjectConfigSchema = Schema.mutable(
  Schema.Struct({
    name: optional(text("The project's display name.")),
    default_model: optional(ModelRefSchema("The model new sessions use unless told otherwise.")),
    vision_model: optional(ModelRefSchema("The model that describes images for models without vision.")),
    default_chat: optional(
      Schema.mutable(
        Schema.Struct({
          agent_id: optional(text("The agent `penguin chat` uses.")),
          workspace: optional(text("The workspace `penguin chat` uses.")),
          approval_mode: optional(Schema.Literal(...APPROVAL_MODES).annotations({ description: "The chat's approval mode when --approve is not given." })),
          thinking_level: optional(Schema.Literal(...THINKING_LEVELS).annotations({ description: "The chat's thinking level." })),
        }),
      ).annotations({ description: "Defaults of the interactive chat." }),
    ),
    command_policy: optional(
      Schema.mutable(
        Schema.Struct({
          enabled: Schema.Boolean.annotations({ description: "Apply the rules.", default: true }),
          rules: Schema.mutable(Schema.Array(PolicyRuleSchema)).annotations({ description: "The complete list of forbidden command patterns.", default: [] }),
        }),
      ).annotations({ description: "Commands forbidden whatever the approval mode." }),
    ),
    models: Schema.mutable(Schema.Array(ModelEntrySchema)).annotations({ description: "The project's model table ([[models]]).", default: [] }),
  }),
);

/** Throws when a parsed config holds a field (or a type) the schema does not describe: a bug, not a user error. */
export const checkParsedProjectConfig = Schema.validateSync(ProjectConfigSchema, { onExcessProperty: "error" });
