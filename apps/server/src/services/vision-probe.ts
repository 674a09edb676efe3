/**
 * The vision probe behind `POST P/models/detect-vision`: one real request through the model
 * gateway carrying a 16×16 solid red PNG and the question "what colour is this image?". A
 * model that sees images says red; one that does not either refuses the image (the request
 * fails) or guesses. Fail-soft by design: the answer is a verdict, never an error.
 *
 *   vision: true    the reply names red
 *   vision: false   the reply names something else, or the provider rejected the request
 *                   (`failed` / `malformed`: typically "image input not supported")
 *   vision: null    unknown: credentials, timeout or network kept the model from answering
 *
 * Like the connection test it costs a few dozen tokens (output capped at 64).
 */
import { streamModel, type ModelEndpoint } from "@penguin/models";

/** 16×16 RGB, every pixel (220, 20, 20). */
export const RED_SQUARE_PNG = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mO4IyJCEmIY1TCqYfhqAAACcQQQFd0BdQAAAABJRU5ErkJggg==";
export const VISION_QUESTION = "What is the colour of this image? Answer with one word.";

export interface VisionProbeResult {
  vision: boolean | null;
  /** What the model said (trimmed, at most 200 characters). */
  answer?: string;
  status: string;
  error?: string;
}

export async function probeVision(endpoint: ModelEndpoint, options: { fetch?: typeof fetch; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<VisionProbeResult> {
  const request: Parameters<typeof streamModel>[0] = {
    endpoint: { ...endpoint, maxTokens: 64, fastMode: false },
    messages: [
      { type: "image_url", role: "user", image_url: `data:image/png;base64,${RED_SQUARE_PNG}` },
      { type: "text", role: "user", text: VISION_QUESTION },
    ],
    tools: [],
    thinkingLevel: "none",
    timeoutMs: options.timeoutMs ?? 60_000,
  };
  if (options.fetch !== undefined) request.fetch = options.fetch;
  if (options.signal !== undefined) request.signal = options.signal;
  let answer = "";
  const stream = streamModel(request);
  for (;;) {
    const step = await stream.next();
    if (step.done === true) {
      const outcome = step.value;
      if (outcome.status !== "completed") {
        const rejected = outcome.status === "failed" || outcome.status === "malformed";
        return { vision: rejected ? false : null, status: outcome.status, error: outcome.errorMessage ?? outcome.status };
      }
      const said = answer.trim().slice(0, 200);
      return { vision: /\bred\b|红/i.test(said), answer: said, status: "completed" };
    }
    if (step.value.type === "text") answer = step.value.text;
  }
}
