/**
 * The sandbox probe started before a command that runs the model loads its modules. The probe
 * is one bwrap start (about 20 ms of wall time here, in a child process), and `run` and `chat`
 * need its answer only when they open the agent, after evaluating core and the command's own
 * modules (another ~20 ms of the main thread): started first, bwrap runs meanwhile on another
 * core and openAgent finds the answer ready (core's probeSandboxAsync remembers it).
 *
 * It loads core's sandbox module alone (`@penguin/core/sandbox-probe`), not the package, so
 * starting the probe does not wait for the rest of core. `--no-sandbox` starts nothing, as
 * before; which commands probe, and what they say when bwrap cannot run, is unchanged
 * (sandbox-default.ts).
 */
export async function startSandboxProbeEarly(flags: { sandbox?: boolean }): Promise<void> {
  if (flags.sandbox === false) return;
  const { probeSandboxAsync } = await import("@penguin/core/sandbox-probe");
  void probeSandboxAsync();
}
