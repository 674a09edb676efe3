/**
 * The describe_image service: the project's `vision_model` looks at an image for a session
 * whose own model has no vision.
 *
 * One out-of-band request (no tools, no history, never in the trace, fast mode off) with the
 * image and the question; the reply's text is the description. A failure throws with the
 * gateway's message (which never holds the key), and the tool turns it into a `failed` output.
 */
import { streamModel, type ModelEndpoint } from "@penguin/models";
import type { DescribeImageFn } from "../environment/tools/describe-image.js";

const DEFAULT_QUESTION = "Describe this image in detail: its content, any text in it (transcribed), and anything notable for the task at hand.";

export function visionDescriber(endpoint: ModelEndpoint, options: { timeoutMs?: number; fetch?: typeof fetch } = {}): DescribeImageFn {
  return async ({ image, prompt, signal }) => {
    const stream = streamModel({
      endpoint: { ...endpoint, fastMode: false },
      messages: [
        { type: "image_url", role: "user", image_url: image },
        { type: "text", role: "user", text: prompt ?? DEFAULT_QUESTION },
      ],
      tools: [],
      thinkingLevel: "none",
      signal,
      timeoutMs: options.timeoutMs,
      fetch: options.fetch,
    });
    let text = "";
    for (;;) {
      const step = await stream.next();
      if (step.done) {
        if (step.value.status !== "completed") {
          throw new Error(`the vision model ${endpoint.provider}/${endpoint.modelId} failed: ${step.value.errorMessage ?? step.value.status}`);
        }
        break;
      }
      if (step.value.type === "text") text += step.value.text;
    }
    return text.trim() === "" ? "(the vision model returned no description)" : text.trim();
  };
}
