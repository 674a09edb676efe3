// `penguin run` through an HTTP proxy, as the bundle ships it: with HTTP_PROXY set, a model
// host that is not loopback is reached through undici's EnvHttpProxyAgent, which the bundled
// CLI loads by import() from bundle/vendor/undici.js. The proxy is a real CONNECT proxy in
// this process that tunnels every connection to the testkit on 127.0.0.1, so the model's
// `.invalid` host name never has to resolve: only a request that went through the proxy can
// be answered. (The ES module bundle used to lose undici's names in that import() and failed
// with "EnvHttpProxyAgent is not a constructor".) That proxied fetch parses HTTP with llhttp in
// WebAssembly, which the CLI has V8 compile with its baseline tier only (--liftoff-only, set by
// src/launch/baseline-wasm.ts right before the first WebAssembly compile): V8's own trace of
// each wasm function it compiles shows no TurboFan, while the same run with the trap stood aside
// (node's own --no-liftoff-only) does tier llhttp up to TurboFan on that answer.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { writeProjectConfig, type ModelEntry } from "@penguin/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { CLI_MAIN } from "./helpers/paths.js";
import { collectOutput, exited } from "./helpers/run-cli.js";
import { KEY, MODEL, PROVIDER, startWorld, type World } from "./helpers/world.js";

let world: World | undefined;
let proxy: Server | undefined;
beforeAll(ensureBuilt, 300_000);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  await new Promise<void>((resolve) => (proxy === undefined ? resolve() : proxy.close(() => resolve())));
  proxy = undefined;
});

/** A CONNECT proxy that tunnels every target to the same port on 127.0.0.1, and counts the tunnels. */
async function startTunnelProxy(): Promise<{ url: string; tunnels: string[] }> {
  const tunnels: string[] = [];
  const server = createServer((_req, res) => res.writeHead(501).end("only CONNECT"));
  server.on("connect", (req, socket, head) => {
    const target = req.url ?? "";
    tunnels.push(target);
    const port = Number(target.split(":").at(-1));
    const upstream = connect(port, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy = server;
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels };
}

/** A world whose model host only the proxy reaches, answering `answer`. */
async function worldBehindProxy(answer: string): Promise<{ world: World; host: string }> {
  const w = await startWorld({ script: [{ text: answer }] });
  // The same testkit, under a host name only the proxy can reach.
  const kitHost = new URL(w.kit.url).host;
  const host = `penguin-proxy-check.invalid:${new URL(w.kit.url).port}`;
  const entry: ModelEntry = { provider: PROVIDER, model_id: MODEL, client_type: "openai-chat", base_url: w.kit.baseUrl("openai-chat").replace(kitHost, host), api_key: KEY };
  writeProjectConfig(w.configFile, { default_model: { provider: PROVIDER, model_id: MODEL }, models: [entry] });
  return { world: w, host };
}

async function runThroughProxy(nodeFlags: string[], proxyUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (world === undefined) throw new Error("start the world first");
  const child = spawn(process.execPath, [...nodeFlags, CLI_MAIN, "run", "-m", "hello"], { env: { ...world.env, HTTP_PROXY: proxyUrl }, cwd: world.workspace, stdio: ["ignore", "pipe", "pipe"] });
  const out = collectOutput(child);
  const { code } = await exited(child);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

describe("penguin run behind an HTTP proxy", { timeout: 60_000 }, () => {
  it("compiles the proxied fetch's WebAssembly HTTP parser with V8's baseline tier only (--liftoff-only set on the first compile)", async () => {
    const tunnel = await startTunnelProxy();
    // A long answer, streamed in many chunks: enough parsing for V8 to tier llhttp up when it may.
    const answer = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" ");
    world = await worldBehindProxy(answer).then((w) => w.world);
    world.kit.enqueue({ text: answer });
    const trace = ["--trace-wasm-compilation-times"];
    const baseline = await runThroughProxy(trace, tunnel.url);
    expect({ code: baseline.code, stderr: baseline.stderr }).toMatchObject({ code: 0 });
    expect(baseline.stdout).toContain(`${answer}\n`);
    // WebAssembly was compiled (the parser ran), and never by the optimizing tier.
    expect(baseline.stdout).toMatch(/using Liftoff/);
    expect(baseline.stdout).not.toMatch(/using TurboFan/);
    // The control: with the flag held at V8's default the same run does tier up, so the check above can fail.
    const tieredUp = await runThroughProxy([...trace, "--no-liftoff-only"], tunnel.url);
    expect(tieredUp.code).toBe(0);
    expect(tieredUp.stdout).toContain(`${answer}\n`);
    expect(tieredUp.stdout).toMatch(/using TurboFan/);
    expect(tunnel.tunnels).toHaveLength(2);
  });

  it("reaches a non-loopback model host through HTTP_PROXY and prints the answer", async () => {
    const tunnel = await startTunnelProxy();
    world = await startWorld({ script: [{ text: "answered through the proxy" }] });
    // The same testkit, under a host name only the proxy can reach.
    const kitHost = new URL(world.kit.url).host;
    const host = `penguin-proxy-check.invalid:${new URL(world.kit.url).port}`;
    const entry: ModelEntry = { provider: PROVIDER, model_id: MODEL, client_type: "openai-chat", base_url: world.kit.baseUrl("openai-chat").replace(kitHost, host), api_key: KEY };
    writeProjectConfig(world.configFile, { default_model: { provider: PROVIDER, model_id: MODEL }, models: [entry] });
    const child = spawn(process.execPath, [CLI_MAIN, "run", "-m", "hello"], { env: { ...world.env, HTTP_PROXY: tunnel.url }, cwd: world.workspace, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect({ code, stderr }).toMatchObject({ code: 0 });
    expect(stdout).toBe("answered through the proxy\n");
    expect(tunnel.tunnels).toEqual([host]);
  });
});
