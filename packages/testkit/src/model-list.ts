/**
 * The model lists served on `GET …/models`, in each provider's shape, so model detection and
 * listing code has something real to parse. The ids are fake and stable.
 */

export const FAKE_MODEL_IDS: readonly string[] = ["testkit-small", "testkit-large", "testkit-reasoner"];

const CREATED = 1_700_000_000;

export function modelListBody(shape: "openai" | "anthropic" | "gemini"): Record<string, unknown> {
  switch (shape) {
    case "openai":
      return { object: "list", data: FAKE_MODEL_IDS.map((id) => ({ id, object: "model", created: CREATED, owned_by: "testkit" })) };
    case "anthropic":
      return {
        data: FAKE_MODEL_IDS.map((id) => ({ type: "model", id, display_name: id, created_at: "2023-11-14T22:13:20Z" })),
        has_more: false,
        first_id: FAKE_MODEL_IDS[0],
        last_id: FAKE_MODEL_IDS.at(-1),
      };
    case "gemini":
      return {
        models: FAKE_MODEL_IDS.map((id) => ({
          name: `models/${id}`,
          displayName: id,
          inputTokenLimit: 1_000_000,
          outputTokenLimit: 65_536,
          supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
        })),
      };
  }
}
