// The models form and the table edits: protocol detection fills the client type, a catalog
// model fills the whole entry, vision detection sets the vision box, stored keys are never
// sent back unless retyped, and a full-table replace keeps the other entries.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@solidjs/testing-library";
import userEvent from "@testing-library/user-event";
import { setFetch } from "../src/api/http";
import type { ModelEntry, ModelEntryInput, ModelPreset, ProviderPreset } from "../src/api/types";
import { ModelForm } from "../src/features/models/ModelForm";
import { groupByProvider, withEntry, withoutEntry } from "../src/features/models/model-table-edit";

/** What `GET P/models/presets` answers, in part (the real catalog lives in @penguin/models). */
const PROVIDER_PRESETS: ProviderPreset[] = [
  { provider: "deepseek", displayName: "DeepSeek", baseUrl: "https://api.deepseek.com", clientType: "openai-chat" },
  { provider: "anthropic", displayName: "Anthropic", baseUrl: "https://api.anthropic.com", clientType: "anthropic-messages" },
];
const MODEL_PRESETS: ModelPreset[] = [
  { provider: "deepseek", modelId: "deepseek-v4-pro", displayName: "DeepSeek V4 Pro", baseUrl: "https://api.deepseek.com", clientType: "openai-chat", contextWindow: 1048576, maxTokens: 65536, vision: false, pricing: { cacheRead: 0.003625, cacheWrite: 0.435, output: 0.87 } },
];

const stored: ModelEntry = { provider: "deepseek", modelId: "deepseek-v4-flash", clientType: "openai-chat", baseUrl: "https://api.deepseek.com", hasKey: true, apiKeyMask: "••••abcd", contextWindow: 128000 };

afterEach(() => setFetch((i, init) => fetch(i, init)));

describe("ModelForm", () => {
  it("adds a custom endpoint: Detect fills the client type and the protocol root", async () => {
    const calls: { url: string; body: unknown }[] = [];
    setFetch(async (input, init) => {
      calls.push({ url: String(input), body: JSON.parse(String(init?.body ?? "{}")) });
      return new Response(JSON.stringify({ detected: { clientType: "openai-chat", baseUrl: "http://127.0.0.1:9999/v1", status: 200 } }), { status: 200 });
    });
    const onSave = vi.fn(async (_i: ModelEntryInput) => undefined);
    render(() =><ModelForm projectId="admin-default_project" presets={PROVIDER_PRESETS} onSave={onSave} onCancel={() => undefined} />);
    await userEvent.click(screen.getByLabelText("Custom endpoint"));
    await userEvent.type(screen.getByLabelText("Base URL"), "http://127.0.0.1:9999");
    await userEvent.click(screen.getByRole("button", { name: "Detect" }));
    expect(await screen.findByText("Detected openai-chat.")).toBeInTheDocument();
    expect(calls[0]).toEqual({ url: "/api/projects/admin-default_project/models/detect", body: { baseUrl: "http://127.0.0.1:9999" } });
    expect(screen.getByLabelText("Client type (wire protocol)")).toHaveValue("openai-chat");
    expect(screen.getByLabelText("Base URL")).toHaveValue("http://127.0.0.1:9999/v1");
    await userEvent.type(screen.getByLabelText("Provider"), "testkit");
    await userEvent.type(screen.getByLabelText("Model id"), "fake-model");
    await userEvent.type(screen.getByLabelText("Output"), "2");
    await userEvent.click(screen.getByRole("button", { name: "Save model" }));
    expect(onSave).toHaveBeenCalledWith({ provider: "testkit", modelId: "fake-model", clientType: "openai-chat", baseUrl: "http://127.0.0.1:9999/v1", pricing: { output: 2 } });
  });

  it("fills provider, URL and protocol from a preset", async () => {
    render(() =><ModelForm projectId="p" presets={PROVIDER_PRESETS} onSave={async () => undefined} onCancel={() => undefined} />);
    await userEvent.selectOptions(screen.getByLabelText("Provider preset"), "anthropic");
    expect(screen.getByLabelText("Provider")).toHaveValue("anthropic");
    expect(screen.getByLabelText("Base URL")).toHaveValue("https://api.anthropic.com");
    expect(screen.getByLabelText("Client type (wire protocol)")).toHaveValue("anthropic-messages");
  });

  it("never shows a stored key and leaves it out of the save unless a new one is typed", async () => {
    const onSave = vi.fn(async (_i: ModelEntryInput) => undefined);
    render(() =><ModelForm projectId="p" entry={stored} presets={PROVIDER_PRESETS} onSave={onSave} onCancel={() => undefined} />);
    const key = screen.getByLabelText("API key");
    expect(key).toHaveValue("");
    expect(screen.getByText("Stored key: ••••abcd")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Save model" }));
    expect(onSave.mock.calls[0]?.[0]).not.toHaveProperty("apiKey");
    await userEvent.type(key, "sk-new-key");
    await userEvent.click(screen.getByRole("button", { name: "Save model" }));
    expect(onSave.mock.calls[1]?.[0]).toMatchObject({ apiKey: "sk-new-key", contextWindow: 128000 });
  });

  it("warns that a moved entry needs its key typed again", async () => {
    render(() =><ModelForm projectId="p" entry={stored} presets={PROVIDER_PRESETS} onSave={async () => undefined} onCancel={() => undefined} />);
    const url = screen.getByLabelText("Base URL");
    await userEvent.clear(url);
    await userEvent.type(url, "https://proxy.example/v1");
    expect(screen.getByRole("alert")).toHaveTextContent("type the key again");
  });
});

describe("model table edits", () => {
  const other: ModelEntry = { provider: "anthropic", modelId: "claude", hasKey: true, clientType: "anthropic-messages", baseUrl: "https://api.anthropic.com" };

  it("replaces the edited entry in place and sends the others without keys", () => {
    const out = withEntry([stored, other], { provider: "deepseek", modelId: "deepseek-v4-pro", apiKey: "k" }, stored);
    expect(out.map((m) => m.modelId)).toEqual(["deepseek-v4-pro", "claude"]);
    expect(out[1]).not.toHaveProperty("apiKey");
    expect(withEntry([stored], { provider: "x", modelId: "y" }).map((m) => m.modelId)).toEqual(["deepseek-v4-flash", "y"]);
    expect(withoutEntry([stored, other], other).map((m) => m.modelId)).toEqual(["deepseek-v4-flash"]);
  });

  it("groups entries by provider", () => {
    expect(groupByProvider([stored, other]).map((g) => g.provider)).toEqual(["anthropic", "deepseek"]);
  });
});

describe("ModelForm presets and vision", () => {
  it("fills an entry from a catalog model, then sets vision from the server's probe", async () => {
    const calls: { url: string; body: unknown }[] = [];
    setFetch(async (input, init) => {
      calls.push({ url: String(input), body: JSON.parse(String(init?.body ?? "{}")) });
      return new Response(JSON.stringify({ vision: true, answer: "Red.", status: "completed" }), { status: 200 });
    });
    const onSave = vi.fn(async (_i: ModelEntryInput) => undefined);
    render(() =><ModelForm projectId="p" presets={PROVIDER_PRESETS} modelPresets={MODEL_PRESETS} onSave={onSave} onCancel={() => undefined} />);
    await userEvent.selectOptions(screen.getByLabelText("Provider preset"), "deepseek");
    await userEvent.selectOptions(screen.getByLabelText("Model from the catalog"), "deepseek-v4-pro");
    expect(screen.getByLabelText("Model id")).toHaveValue("deepseek-v4-pro");
    expect(screen.getByLabelText("Context window (tokens)")).toHaveValue("1048576");
    expect(screen.getByLabelText("Output", { exact: true })).toHaveValue("0.87");
    expect(screen.getByLabelText("Accepts images (vision)")).not.toBeChecked();
    await userEvent.click(screen.getByRole("button", { name: "Detect vision" }));
    expect(await screen.findByText(/The model sees images/)).toBeInTheDocument();
    expect(screen.getByLabelText("Accepts images (vision)")).toBeChecked();
    expect(calls).toEqual([{ url: "/api/projects/p/models/detect-vision", body: { provider: "deepseek", modelId: "deepseek-v4-pro", baseUrl: "https://api.deepseek.com", clientType: "openai-chat" } }]);
    await userEvent.click(screen.getByRole("button", { name: "Save model" }));
    expect(onSave.mock.calls[0]?.[0]).toMatchObject({ provider: "deepseek", modelId: "deepseek-v4-pro", displayName: "DeepSeek V4 Pro", vision: true, maxTokens: 65536, pricing: { cacheRead: 0.003625, cacheWrite: 0.435, output: 0.87 } });
  });
});
