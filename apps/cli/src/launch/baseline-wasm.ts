/**
 * V8's `--liftoff-only`, set right before the process first compiles WebAssembly, not at start.
 * Node's fetch (and the undici package the proxy path imports) parse HTTP with llhttp in
 * WebAssembly, and V8's optimizing tier for it costs ~30 MiB of peak RSS and ~60 ms of CPU for
 * a parser that reads a few kilobytes; the baseline tier (Liftoff) is plenty. But while any V8
 * flag differs from its default, Node refuses its own embedded code cache for built-in modules
 * (V8 keys it by a hash of the flags), so a flag set at start made every built-in loaded later
 * (about 50 in a run) compile from source. A plain run compiles no WebAssembly at all, so the
 * flag is set by a trap on WebAssembly's compile entry points, which puts the originals back on
 * its first call. The process owner installs it (cached-main.js, and main.ts when dist/ runs
 * alone); cached-main.js and cli-script.js are two bundles with a copy of this module each, so
 * the state lives on globalThis under a registered symbol. Imports nothing: node:v8 is looked
 * up only when the trap fires.
 */

const STATE = Symbol.for("penguin.baseline-wasm");
const ENTRY_POINTS = ["compile", "instantiate", "compileStreaming", "instantiateStreaming", "Module"] as const;

interface State {
  liftoffOnly: boolean;
}

function state(): State | undefined {
  return (globalThis as { [STATE]?: State })[STATE];
}

/** Installs the trap once per process. Node flags that choose a WebAssembly tier themselves are left alone. */
export function preferBaselineWasm(): void {
  if (state() !== undefined) return;
  const own: State = { liftoffOnly: false };
  (globalThis as { [STATE]?: State })[STATE] = own;
  if (/liftoff|wasm-tier|wasm-dynamic/.test([...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" "))) return;
  // Typed by hand: the project compiles without the DOM library, which declares WebAssembly.
  const wasm = (globalThis as unknown as { WebAssembly: Record<string, unknown> }).WebAssembly;
  const originals = ENTRY_POINTS.flatMap((name) => {
    const descriptor = Object.getOwnPropertyDescriptor(wasm, name);
    return typeof descriptor?.value === "function" ? [[name, descriptor] as const] : [];
  });
  const fire = (): void => {
    if (own.liftoffOnly) return;
    for (const [name, descriptor] of originals) Object.defineProperty(wasm, name, descriptor);
    process.getBuiltinModule("node:v8").setFlagsFromString("--liftoff-only");
    own.liftoffOnly = true;
  };
  for (const [name, descriptor] of originals) {
    const original = descriptor.value as (...args: unknown[]) => unknown;
    const trap: typeof original = new Proxy(original, {
      apply(target, self, args) {
        fire();
        return Reflect.apply(target, self, args);
      },
      construct(target, args, newTarget) {
        fire();
        return Reflect.construct(target, args, newTarget === trap ? target : newTarget) as object;
      },
    });
    Object.defineProperty(wasm, name, { ...descriptor, value: trap });
  }
}

/** True once the trap has set `--liftoff-only` in this process. */
export function baselineWasmSet(): boolean {
  return state()?.liftoffOnly === true;
}

/**
 * Puts the tiering flags back to V8's defaults if the trap changed them, so a code cache made
 * now carries the flag hash a later start has (cached-main.js, right before saving at exit).
 * `--liftoff-only` implied `--no-wasm-tier-up` and `--no-wasm-dynamic-tiering`, which V8 does
 * not undo by itself; it is turned off first, or it would imply them again.
 */
export function restoreWasmTierDefaults(): void {
  if (!baselineWasmSet()) return;
  const { setFlagsFromString } = process.getBuiltinModule("node:v8");
  for (const flag of ["--no-liftoff-only", "--wasm-tier-up", "--wasm-dynamic-tiering"]) setFlagsFromString(flag);
  const own = state();
  if (own !== undefined) own.liftoffOnly = false;
}
