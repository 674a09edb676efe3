/**
 * A ticking clock for live timers (tool cards, retry countdowns): while `active()` is true
 * the returned signal updates every `intervalMs`; otherwise no timer runs, so finished rows
 * cost nothing. Must be called inside a component (the timer is owned by it).
 */
import { createEffect, createSignal, onCleanup, type Accessor } from "solid-js";

export function createNow(active: Accessor<boolean>, intervalMs = 500): Accessor<number> {
  const [now, setNow] = createSignal(Date.now());
  createEffect(() => {
    if (!active()) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    onCleanup(() => clearInterval(timer));
  });
  return now;
}
