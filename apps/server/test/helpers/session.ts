// Session helpers for scenario tests: create a session, open its stream, and wait for runs
// to finish by watching `task_state` transitions on the stream (never by sleeping).
import type { ApiClient } from "./client.js";
import { dataOf, SseReader, type SseEvent } from "./sse.js";

export async function newSession(c: ApiClient, body: Record<string, unknown> = {}, project = "default_project", agent = "default_agent"): Promise<string> {
  const res = await c.post(`/api/projects/${project}/agents/${agent}/sessions`, body);
  if (res.status !== 201) throw new Error(`session create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export async function openStream(c: ApiClient, sid: string, lastEventId?: string): Promise<SseReader> {
  const res = await c.raw("GET", `/api/sessions/${sid}/stream`, lastEventId === undefined ? {} : { headers: { "last-event-id": lastEventId } });
  if (res.status !== 200 || res.body === null) throw new Error(`stream failed: ${res.status}`);
  return new SseReader(res.body);
}

/** Task states published on the stream (with ids), in order. */
export function taskStates(events: SseEvent[]): string[] {
  return events.filter((e) => e.event === "server_event" && e.id !== undefined && dataOf(e).type === "task_state").map((e) => String(dataOf(e).state));
}

/** How many runs ended (running/compacting → idle) in the events so far. */
export function runsEnded(events: SseEvent[]): number {
  let ended = 0;
  let prev = "idle";
  for (const s of taskStates(events)) {
    if (s === "idle" && prev !== "idle") ended += 1;
    prev = s;
  }
  return ended;
}

export function untilRunsEnded(sse: SseReader, n: number): Promise<SseEvent> {
  return sse.until((_e, all) => runsEnded(all) >= n);
}

export function untilServerEvent(sse: SseReader, type: string, after = 0): Promise<SseEvent> {
  let seen = 0;
  return sse.until((e) => e.event === "server_event" && dataOf(e).type === type && ++seen > after);
}

export function text(text: string): { input: { type: "text"; text: string }[] } {
  return { input: [{ type: "text", text }] };
}
