// A minimal SSE reader for the bench: reads one session stream, records the latency of every
// OmniMessage event (arrival time minus the envelope's own timestamp, set in the server when
// the message was made), and resolves when the session's run has ended.
export interface StreamResult {
  latencies: number[];
  events: number;
}

export async function followRun(url: string, cookie: string, now: () => number = Date.now): Promise<{ ready: Promise<void>; done: Promise<StreamResult> }> {
  const res = await fetch(url, { headers: { cookie } });
  if (res.body === null || res.status !== 200) throw new Error(`stream ${url} answered ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const done = (async (): Promise<StreamResult> => {
    const latencies: number[] = [];
    let events = 0;
    let buffer = "";
    let sawRunning = false;
    for (;;) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      const arrived = now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (data === "") continue;
        const parsed: { type?: string; state?: string; timestamp?: string } = JSON.parse(data);
        if (event === "server_event") {
          if (parsed.type === "task_state") {
            if (parsed.state === "idle" && !sawRunning) markReady();
            if (parsed.state === "running") sawRunning = true;
            if (parsed.state === "idle" && sawRunning) {
              await reader.cancel();
              return { latencies, events };
            }
          }
          continue;
        }
        events += 1;
        if (parsed.timestamp !== undefined) latencies.push(arrived - Date.parse(parsed.timestamp));
      }
    }
    throw new Error(`the stream ${url} ended before the run did`);
  })();
  return { ready, done };
}
