// `penguin run` through an HTTP proxy, as the bundle ships it: with HTTP_PROXY set, a model
// host that is not loopback is reached through undici's EnvHttpProxyAgent, which the bundled
// CLI loads by import() from bundle/vendor/undici.js. The proxy is a real CONNECT proxy in
// this process that tunnels every connection to the testkit on 127.0.0.1, so the model's
// `.invalid` host name never has to resolve: only a request that went through the proxy can
// be answered. (The ES module bundle used to lose undici's names in that import() and failed
// with "EnvHttpProxyAgent is not a constructor".)
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { writeProjectConfig, type ModelEntry } from "@penguin/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers/build.js";
import { CLI_MAIN } from "./helpers/paths.js";
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

describe("penguin run behind an HTTP proxy", { timeout: 60_000 }, () => {
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
