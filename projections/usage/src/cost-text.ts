/**
 * The one way a cost is written, for the CLI, the server's API and the web app alike (this
 * module imports nothing, so a browser bundle can use it): `$0.0123` below ten cents,
 * `$1.23` above, `$0.00` for no priced tokens; `n/a` when some tokens have no price and
 * nothing else was priced; `$1.23 + n/a` when part of the figure is unpriced, so an unpriced
 * model never looks free.
 */
export function costText(cost: number, hasUncosted: boolean): string {
  if (hasUncosted && cost === 0) return "n/a";
  const priced = cost === 0 ? "$0.00" : cost < 0.1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
  return hasUncosted ? `${priced} + n/a` : priced;
}
