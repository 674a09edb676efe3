/**
 * A session's lease (one writer per session) is let go when its Session is disposed, and on
 * any exit that runs Node's `exit` event (Ctrl-C's second press, `process.exit`). SIGTERM and
 * SIGHUP end the process without that event, which would leave the lease for the next taker to
 * find stale. So, once per process: on either signal the held leases are released, and the
 * process then dies of the same signal, as it would have without the handler.
 */
let installed = false;

export async function releaseLeasesOnSignals(): Promise<void> {
  if (installed) return;
  installed = true;
  const { releaseHeldLeases } = await import("@penguin/core");
  const onSignal = (signal: NodeJS.Signals): void => {
    releaseHeldLeases();
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
    process.kill(process.pid, signal);
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGHUP", onSignal);
}
