/**
 * Value parsers for numeric flags. They throw commander's InvalidArgumentError, which
 * commander reports as `error: option '--x <n>' argument 'abc' is invalid. …` and which the
 * entry point turns into exit 2, like every other usage error.
 */
import { InvalidArgumentError } from "commander";

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError("expected a whole number above 0.");
  return n;
}

export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError("expected a number >= 0.");
  return n;
}
