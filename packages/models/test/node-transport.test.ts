// The default transport (node-transport.ts) against real local servers: a request without a
// proxy never touches the global fetch, and the rules kept from fetch hold: redirects (method,
// body, and credentials only to the same origin), a compressed body decoded, a redirect loop
// ending in a network failure; the body is not kept while the answer streams; a complete
// answer's connection carries the next request, any other is dropped.
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { streamModel } from "../src/index.js";
import { endpointFor, request, run } from "./helpers/replay.js";
import { chatSse, startServer, type LocalServer } from "./helpers/servers.js";

const servers: LocalServer[] = [];
async function server(...args: Parameters<typeof startServer>): Promise<LocalServer> {
  const s = await startServer(...args);
  servers.push(s);
  return s;
}
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function textOf(items: { type: string }[]): string {
  return items
    .filter((p): p is { type: "text"; text: string } => p.type === "text")
    .map((p) => p.text)
    .join("");
}

describe("the node:http transport", () => {
  it("carries a request without proxy variables, and the global fetch is never called", async () => {
    const model = await server((_req, res) => chatSse(res, "over node:http"));
    const realFetch = globalThis.fetch;
    let fetchCalls = 0;
    globalThis.fetch = (() => {
      fetchCalls += 1;
      throw new Error("the global fetch was used");
    }) as typeof fetch;
    try {
      const { items, outcome } = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
      expect(outcome.status).toBe("completed");
      expect(textOf(items)).toBe("over node:http");
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fetchCalls).toBe(0);
    const seen = model.seen[0];
    expect(seen?.method).toBe("POST");
    expect(seen?.headers["content-length"]).toBe(String(Buffer.byteLength(seen?.body ?? "")));
    expect(seen?.headers["accept-encoding"]).toBe("identity");
    expect(seen?.headers["user-agent"]).toBe("penguin-harness");
    expect(seen?.headers.authorization).toBe("Bearer sk-test-secret-key-0001");
  });

  it("sends a body of non-ASCII text as its UTF-8 bytes, with their count as the length", async () => {
    const model = await server((_req, res) => chatSse(res, "ok"));
    const text = "résumé — 続けて 🐧";
    const { outcome } = await run(request(endpointFor("openai-chat", `${model.url}/v1`), { messages: [{ type: "text", role: "user", text }] }));
    expect(outcome.status).toBe("completed");
    const seen = model.seen[0];
    expect(seen?.headers["content-length"]).toBe(String(Buffer.byteLength(seen?.body ?? "")));
    expect(Buffer.byteLength(seen?.body ?? "")).toBeGreaterThan((seen?.body ?? "").length);
    expect(JSON.stringify(JSON.parse(seen?.body ?? "{}").messages)).toContain(text);
  });

  it("follows a 307 to another origin with the same method and body, and without the key", async () => {
    const target = await server((_req, res) => chatSse(res, "moved"));
    const origin = await server((req, res) => {
      res.writeHead(307, { location: `${target.url}${req.url}` });
      res.end();
    });
    const { items, outcome } = await run(request(endpointFor("openai-chat", `${origin.url}/v1`)));
    expect(outcome.status).toBe("completed");
    expect(textOf(items)).toBe("moved");
    const [first] = origin.seen;
    const [second] = target.seen;
    expect(second?.method).toBe("POST");
    expect(second?.url).toBe("/v1/chat/completions");
    expect(second?.body).toBe(first?.body);
    expect(first?.headers.authorization).toBe("Bearer sk-test-secret-key-0001");
    expect(second?.headers.authorization).toBeUndefined();
  });

  it("keeps the key on a redirect within the same origin", async () => {
    const model = await server((req, res) => {
      if (req.url === "/old/chat/completions") {
        res.writeHead(308, { location: "/v1/chat/completions" });
        res.end();
      } else chatSse(res, "same origin");
    });
    const { outcome } = await run(request(endpointFor("openai-chat", `${model.url}/old`)));
    expect(outcome.status).toBe("completed");
    expect(model.seen.map((s) => s.url)).toEqual(["/old/chat/completions", "/v1/chat/completions"]);
    expect(model.seen[1]?.headers.authorization).toBe("Bearer sk-test-secret-key-0001");
    expect(model.seen[1]?.body).toBe(model.seen[0]?.body);
  });

  it("continues a 303 as a GET without a body", async () => {
    const model = await server((req, res) => {
      if (req.method === "POST") {
        res.writeHead(303, { location: "/v1/answer" });
        res.end();
      } else chatSse(res, "after see-other");
    });
    const { outcome } = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
    expect(outcome.status).toBe("completed");
    expect(model.seen[1]?.method).toBe("GET");
    expect(model.seen[1]?.body).toBe("");
    expect(model.seen[1]?.headers["content-type"]).toBeUndefined();
  });

  it("ends a redirect loop in a network failure that says so", async () => {
    const model = await server((req, res) => {
      res.writeHead(302, { location: req.url ?? "/" });
      res.end();
    });
    const { outcome } = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
    expect(outcome.status).toBe("failed");
    expect(outcome.errorMessage).toMatch(/redirect count exceeded/);
    expect(model.seen.length).toBe(21);
  });

  it("decodes a body the server gzipped although none was asked for", async () => {
    const model = await server((_req, res) => {
      const sse = [
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "unzipped" }, finish_reason: null }] })}\n\n`,
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
        "data: [DONE]\n\n",
      ].join("");
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
      res.end(gzipSync(sse));
    });
    const { items, outcome } = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
    expect(outcome.status).toBe("completed");
    expect(textOf(items)).toBe("unzipped");
  });

  it("keeps neither the body nor its bytes while the answer streams (a resumed history's body is tens of MB), but the wire cache's one copy, which goes with the history", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    let release: () => void = () => undefined;
    let received = 0;
    const model = createServer((req, res) => {
      req.on("data", (c: Buffer) => (received += c.length));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "first" }, finish_reason: null }] })}\n\n`);
        release = () => res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`);
      });
    });
    await new Promise<void>((r) => model.listen(0, "127.0.0.1", r));
    const address = model.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const MB = 1 << 20;
      gc();
      const before = process.memoryUsage();
      // The history itself (48 MB of text) is the caller's, held by the stream; the body built
      // from it (another 48 MB string, and its 48 MB of bytes) must not be once it is sent. The
      // wire cache keeps the history's encoded bytes (one copy, 48 MB) while the history lives,
      // for the next request to begin with.
      const streamOnce = async (): Promise<void> => {
        const stream = streamModel(request(endpointFor("openai-chat", `http://127.0.0.1:${port}/v1`), { messages: [{ type: "text", role: "user", text: "x".repeat(48 * MB) }] }));
        for (;;) {
          const step = await stream.next();
          if (step.done === true || step.value.type === "partial_text" || step.value.type === "text") break;
        }
        expect(received).toBeGreaterThan(48 * MB);
        gc();
        gc();
        const during = process.memoryUsage();
        expect((during.arrayBuffers - before.arrayBuffers) / MB).toBeLessThan(48 + 16);
        expect((during.heapUsed - before.heapUsed) / MB).toBeLessThan(48 + 24);
        release();
        for (let step = await stream.next(); step.done !== true; step = await stream.next()) {
          // drain to the end
        }
      };
      await streamOnce();
      // The history is gone: so is its encoding.
      gc();
      gc();
      const after = process.memoryUsage();
      expect((after.arrayBuffers - before.arrayBuffers) / MB).toBeLessThan(16);
      expect((after.heapUsed - before.heapUsed) / MB).toBeLessThan(24);
    } finally {
      await new Promise<void>((r) => {
        model.closeAllConnections();
        model.close(() => r());
      });
    }
  });

  it("carries consecutive complete answers over one kept-alive connection (no connect, no TLS handshake, per turn)", async () => {
    const model = await server((_req, res) => chatSse(res, "again"));
    const sockets: Socket[] = [];
    model.server.on("connection", (socket: Socket) => sockets.push(socket));
    for (let i = 0; i < 4; i++) {
      const { items, outcome } = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
      expect(outcome.status).toBe("completed");
      expect(textOf(items)).toBe("again");
    }
    expect(model.seen).toHaveLength(4);
    expect(sockets).toHaveLength(1);
  });

  it("drops the connection of an answer that goes on after its terminal event, and of one read only in part", async () => {
    // After [DONE] this server keeps writing and never ends the body: the gateway reads a little
    // of it to keep the connection, then lets it go; the answer itself is complete at [DONE].
    let chatty = true;
    const model = await server((_req, res) => {
      if (!chatty) return chatSse(res, "plain");
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "said" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`);
      const more = (): void => {
        while (res.write(`: ${"x".repeat(8192)}\n\n`));
        res.once("drain", more);
      };
      more();
    });
    const sockets: Socket[] = [];
    model.server.on("connection", (socket: Socket) => sockets.push(socket));
    const first = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
    expect(first.outcome.status).toBe("completed");
    expect(textOf(first.items)).toBe("said");
    const [chattySocket] = sockets;
    if (chattySocket === undefined) throw new Error("no connection");
    if (!chattySocket.destroyed) await new Promise((resolve) => chattySocket.once("close", resolve));
    chatty = false;
    const second = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
    expect(textOf(second.items)).toBe("plain");
    expect(sockets).toHaveLength(2);
    // A caller that stops reading mid-answer: that connection is not kept either.
    const stream = streamModel(request(endpointFor("openai-chat", `${model.url}/v1`)));
    await stream.next();
    await stream.return(undefined as never);
    const third = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
    expect(textOf(third.items)).toBe("plain");
    expect(sockets).toHaveLength(3);
  });

  it("lets go of a connection whose body stays open after the terminal event", async () => {
    const model = await server((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "held" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`);
    });
    const sockets: Socket[] = [];
    model.server.on("connection", (socket: Socket) => sockets.push(socket));
    const { items, outcome } = await run(request(endpointFor("openai-chat", `${model.url}/v1`)));
    expect(outcome.status).toBe("completed");
    expect(textOf(items)).toBe("held");
    // The answer came back at once; the connection is closed by the client after a moment
    // (node-transport.ts RELEASE_MS), seen here as the server's socket closing.
    const [held] = sockets;
    if (held === undefined) throw new Error("no connection");
    if (!held.destroyed) await new Promise((resolve) => held.once("close", resolve));
    expect(held.destroyed).toBe(true);
  });
});
