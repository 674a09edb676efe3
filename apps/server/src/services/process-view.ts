/**
 * A session's background commands as the details panel shows them: core's process list
 * (id, command, label, status, start, exit code) plus `serviceUrl` when a running command
 * has printed a local address (a dev server: `http://localhost:5173/`), found in the tail of
 * its output. Wildcard binds (`0.0.0.0`, `[::]`) are shown as `localhost`, which is where a
 * browser on this machine reaches them. The newest address printed wins.
 */
import type { ProcessInfo, Session } from "@penguin/core";

const LOCAL_URL = /\bhttps?:\/\/(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\])(?::\d{2,5})?(?:\/[^\s"'<>`)\]]*)?/g;

export interface ProcessView extends ProcessInfo {
  serviceUrl?: string;
}

export function serviceUrlOf(output: string): string | undefined {
  const plain = output.replace(/\u001b\[[0-9;]*m/g, "");
  const found = [...plain.matchAll(LOCAL_URL)].map((m) => m[0]);
  const last = found[found.length - 1];
  return last?.replace(/^(https?:\/\/)(?:0\.0\.0\.0|\[::\])/, "$1localhost");
}

export function processViews(core: Session | undefined): ProcessView[] {
  if (core === undefined) return [];
  return core.processes().map((p) => {
    if (p.status !== "running") return p;
    const url = serviceUrlOf(core.processOutputTail(p.id) ?? "");
    return url === undefined ? p : { ...p, serviceUrl: url };
  });
}
