// Proxies: settings read from an explicit env, loopback always bypassed, and a real local
// proxy that sees the remote request while the loopback testkit is reached directly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { startTestkit, type Testkit } from "@penguin/testkit";
import { bypassesProxy, defaultFetch, proxiedFetch, proxyFetch, proxySettings } from "../src/index.js";
import { endpointFor, request, run } from "./helpers/replay.js";
import { chatSse } from "./helpers/servers.js";

describe("proxy settings", () => {
  it("are absent without proxy variables, and the global fetch is used", () => {
    expect(proxySettings({})).toBeUndefined();
    expect(proxySettings({ NO_PROXY: "x" })).toBeUndefined();
    expect(defaultFetch({})).toBe(globalThis.fetch);
  });

  it("give the gateway no fetch without proxy variables (it then sends over node:http), and one proxied fetch per settings with them", () => {
    expect(proxyFetch({})).toBeUndefined();
    const withProxy = proxyFetch({ HTTPS_PROXY: "http://proxy:3128" });
    expect(typeof withProxy).toBe("function");
    expect(proxyFetch({ HTTPS_PROXY: "http://proxy:3128" })).toBe(withProxy);
    expect(defaultFetch({ HTTPS_PROXY: "http://proxy:3128" })).toBe(withProxy);
  });

  it("read either case and always add loopback to NO_PROXY", () => {
    const s = proxySettings({ https_proxy: "http://proxy:3128", NO_PROXY: "corp.example, .internal" });
    expect(s).toEqual({ httpProxy: undefined, httpsProxy: "http://proxy:3128", noProxy: "corp.example,.internal,localhost,127.0.0.1,::1,[::1]" });
  });

  it("bypass loopback and NO_PROXY hosts, and nothing else", () => {
    const s = proxySettings({ HTTP_PROXY: "http://proxy:3128", NO_PROXY: ".internal,api.example:8443" });
    if (s === undefined) throw new Error("settings expected");
    expect(bypassesProxy("http://127.0.0.1:8000/v1", s)).toBe(true);
    expect(bypassesProxy("http://localhost:11434/v1", s)).toBe(true);
    expect(bypassesProxy("http://[::1]:8000/v1", s)).toBe(true);
    expect(bypassesProxy("https://llm.internal/v1", s)).toBe(true);
    expect(bypassesProxy("https://api.example:8443/v1", s)).toBe(true);
    expect(bypassesProxy("https://api.example/v1", s)).toBe(false);
    expect(bypassesProxy("https://api.openai.com/v1", s)).toBe(false);
  });
});

describe("requests through a real proxy", () => {
  let kit: Testkit;
  let proxy: Server;
  let proxyUrl: string;
  const seen: string[] = [];
  const target = createServer((req, res) => {
    req.resume();
    req.on("end", () => chatSse(res, "via proxy"));
  });
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    kit = await startTestkit();
    proxy = createServer((req, res) => {
      // Absolute-form request (a plain-HTTP proxy hop): answer as the remote server would.
      seen.push(`${req.method} ${req.url}`);
      target.emit("request", req, res);
    });
    proxy.on("connect", (req, socket: Socket) => {
      // A tunnel: acknowledge, then let the fake remote server speak HTTP on the socket.
      seen.push(`CONNECT ${req.url}`);
      sockets.add(socket);
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      target.emit("connection", socket);
    });
    proxy.on("connection", (s: Socket) => sockets.add(s));
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const address = proxy.address();
    proxyUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });
  afterAll(async () => {
    await kit.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => proxy.close(r));
  });

  it("sends a remote request through the proxy", async () => {
    const settings = proxySettings({ HTTP_PROXY: proxyUrl });
    if (settings === undefined) throw new Error("settings expected");
    const { items, outcome } = await run(request(endpointFor("openai-chat", "http://models.remote.invalid/v1"), { fetch: proxiedFetch(settings) }));
    expect(outcome.status).toBe("completed");
    expect(items.some((p) => p.type === "text" && p.text === "via proxy")).toBe(true);
    expect(seen.length).toBe(1);
    expect(seen[0]).toMatch(/models\.remote\.invalid/);
  });

  it("reaches a loopback server directly, never through the proxy", async () => {
    const settings = proxySettings({ HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl });
    if (settings === undefined) throw new Error("settings expected");
    const before = seen.length;
    kit.enqueue({ text: "direct" });
    const { outcome } = await run(request(endpointFor("openai-chat", kit.baseUrl("openai-chat")), { fetch: proxiedFetch(settings) }));
    expect(outcome.status).toBe("completed");
    expect(kit.requests).toHaveLength(1);
    expect(seen.length).toBe(before);
  });
});
