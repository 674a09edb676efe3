/**
 * A ticking clock for live timers (tool cards, retry countdowns): re-renders the caller
 * every `intervalMs` while `active`, and not at all otherwise, so finished rows cost nothing.
 */
import { useEffect, useState } from "react";

export function useNow(active: boolean, intervalMs = 500): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
