/**
 * The one-click fix a prompt-section tab offers (SPEC §10): when the system prompt lacks the
 * section's placeholder (`{{VAULT}}`, `{{MEMORY}}`), the section never reaches the model,
 * so the tab says so and can append the placeholder (the server edits the YAML, comments
 * kept, and answers the new text).
 */
import { useState } from "react";
import { insertPlaceholder } from "../../api/agents";
import { errorText } from "../../api/http";
import { Button } from "../../components/ui/Button";
import { Notice } from "../../components/ui/Notice";

export function PlaceholderOffer({ projectId, agentId, section, systemConfig, readOnly, onConfig, what }: { projectId: string; agentId: string; section: "vault" | "memory"; systemConfig: string; readOnly: boolean; onConfig(text: string): void; what: string }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const placeholder = section === "vault" ? "{{VAULT}}" : "{{MEMORY}}";
  if (systemConfig === "" || systemConfig.includes(placeholder)) return null;
  return (
    <Notice tone="warning">
      <p>
        The system prompt has no <code>{placeholder}</code>, so {what} is not given to the model.
      </p>
      {!readOnly && (
        <Button
          size="sm"
          className="mt-2"
          onClick={() => {
            setError(undefined);
            insertPlaceholder(projectId, agentId, section).then(onConfig, (e: unknown) => setError(errorText(e)));
          }}
        >
          Insert {placeholder}
        </Button>
      )}
      {error !== undefined && <p className="mt-1 text-red-700 dark:text-red-300">{error}</p>}
    </Notice>
  );
}
