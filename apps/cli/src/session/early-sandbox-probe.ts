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
 *
 * A yes is remembered across processes in the data root (`<root>/.cache/sandbox-probe.json`,
 * core's probe-memo.ts): a later start on the same machine reads it and starts no bwrap at all.
 * The root's rule comes from `@penguin/core/data-root`, as light as the sandbox module.
 */
export async function startSandboxProbeEarly(flags: { sandbox?: boolean; root?: string }): Promise<void> {
  if (flags.sandbox === false) return;
  const [{ probeSandboxAsync }, { resolveRoot, sandboxProbeMemo }] = await Promise.all([
    import("@penguin/core/sandbox-probe"),
    import("@penguin/core/data-root"),
  ]);
  void probeSandboxAsync(undefined, { memoFile: sandboxProbeMemo(resolveRoot(flags.root)) });
}
