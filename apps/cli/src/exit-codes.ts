/**
 * The exit codes of the `penguin` command, the contract scripts rely on (the README lists
 * them too). They are one table so every command maps outcomes the same way, and tests
 * and scripts can name them instead of repeating numbers.
 *
 *   0 done · 1 failed · 2 usage or config error · 3 auth · 130 aborted (SIGINT)
 */
export const EXIT = {
  done: 0,
  failed: 1,
  usage: 2,
  auth: 3,
  aborted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
