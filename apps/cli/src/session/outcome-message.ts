/**
 * The one line a user reads when a task did not finish: what happened and what to do.
 * An auth failure names the provider and the base URL it was sent to (never the key) and
 * the command that replaces the key; a configuration failure (bad base URL, unknown host,
 * 404/501) names the base URL and the commands that fix and re-check the entry; other
 * failures name the endpoint that failed.
 * Shared by `run` and `chat`.
 */
import type { TaskOutcome } from "./outcome.js";

export interface EndpointNames {
  provider: string;
  modelId: string;
  baseUrl: string | undefined;
}

export function describeOutcome(outcome: TaskOutcome, e: EndpointNames): string | undefined {
  const at = e.baseUrl !== undefined ? ` at ${e.baseUrl}` : "";
  switch (outcome.kind) {
    case "done":
      return undefined;
    case "aborted":
      return `[aborted] ${outcome.reason}`;
    case "auth":
      return (
        `error: authentication failed for provider ${e.provider}${at} (${outcome.message}). ` +
        `Set a valid key with: penguin config model add --provider ${e.provider} --model-id ${e.modelId} --api-key <key>`
      );
    case "config":
      return (
        `error: the model endpoint is misconfigured (${outcome.message}); model ${e.provider}/${e.modelId}${at}. ` +
        `Fix the base URL with: penguin config model add --provider ${e.provider} --model-id ${e.modelId} --base-url <url>, ` +
        `then check it with: penguin config model test ${e.provider} ${e.modelId}`
      );
    case "failed":
      return `error: the task failed (${outcome.message}); model ${e.provider}/${e.modelId}${at}`;
  }
}
