/**
 * The one-click fix a prompt-section tab offers (SPEC §10): when the system prompt lacks the
 * section's placeholder (`{{VAULT}}`, `{{MEMORY}}`), the section never reaches the model,
 * so the tab says so and can append the placeholder (the server edits the YAML, comments
 * kept, and answers the new text).
 */
import { createSignal, Show } from "solid-js";
import { insertPlaceholder } from "../../api/agents";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";

export function PlaceholderOffer(props: { projectId: string; agentId: string; section: "vault" | "memory"; systemConfig: string; readOnly: boolean; onConfig(text: string): void; what: string }) {
  const [error, setError] = createSignal<string | undefined>(undefined);
  const placeholder = () => (props.section === "vault" ? "{{VAULT}}" : "{{MEMORY}}");
  return (
    <Show when={props.systemConfig !== "" && !props.systemConfig.includes(placeholder())}>
      <Notice tone="warning">
        <p>
          The system prompt has no <code>{placeholder()}</code>, so {props.what} is not given to the model.
        </p>
        <Show when={!props.readOnly}>
          <Button
            size="sm"
            class="mt-2"
            onClick={() => {
              setError(undefined);
              insertPlaceholder(props.projectId, props.agentId, props.section).then(
                (text) => props.onConfig(text),
                (e: unknown) => setError(errorText(e)),
              );
            }}
          >
            Insert {placeholder()}
          </Button>
        </Show>
        <Show when={error()}>{(e) => <p class="mt-1 text-red-700 dark:text-red-300">{e()}</p>}</Show>
      </Notice>
    </Show>
  );
}
