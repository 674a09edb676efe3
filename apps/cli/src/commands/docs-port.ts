/**
 * The `--port` of `penguin docs`: a whole number from 0 to 65535, 0 (the default) picking a
 * free port. Its own file so the rule is testable without starting anything.
 */
export function parsePortFlag(value: string | undefined): number | undefined {
  if (value === undefined) return 0;
  if (!/^\d{1,5}$/.test(value)) return undefined;
  const port = Number(value);
  return port <= 65535 ? port : undefined;
}
