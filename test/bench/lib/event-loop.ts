// How long a piece of work holds the event loop: the rows that serve requests (a trace page, a
// time-travel state) report the longest gap between two turns of the loop while the work ran,
// the stretch in which no other client of the process is answered.

/** The wall time of `run`, and the longest gap between two turns of the event loop while it ran (its last stretch included). */
export async function longestHold(run: () => Promise<unknown>): Promise<{ ms: number; longest: number }> {
  let longest = 0;
  const start = process.hrtime.bigint();
  let last = start;
  let done = false;
  const tick = (): void => {
    const now = process.hrtime.bigint();
    longest = Math.max(longest, Number(now - last) / 1e6);
    last = now;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  await run();
  const end = process.hrtime.bigint();
  longest = Math.max(longest, Number(end - last) / 1e6);
  done = true;
  return { ms: Number(end - start) / 1e6, longest };
}
