/**
 * isThinkingLevel: whether a recorded or requested string is one of the models' thinking
 * levels. Its own small module because agent.ts exports it and the session builder and
 * resume use it too, and they must not import agent.ts (which imports them).
 */
import { THINKING_LEVELS, type ThinkingLevel } from "@penguin/models";

export function isThinkingLevel(v: string): v is ThinkingLevel {
  return (THINKING_LEVELS as readonly string[]).includes(v);
}
