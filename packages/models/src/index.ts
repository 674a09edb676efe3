// @penguin/models: the model gateway. Four wire protocols over fetch, no vendor SDKs.
export * from "./types.js";
