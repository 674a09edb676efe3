// read_image and describe_image through executeTool, with images from files and from a real
// HTTP server on 127.0.0.1: success, refusals, truncation (images stay outside the window),
// a timeout and an interrupt (on a server that never answers, or a describer that waits).
import { createServer, type Server } from "node:http";
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, manualTimeouts, sandbox, type Sandbox } from "./helpers.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const PNG_URL = `data:image/png;base64,${PNG.toString("base64")}`;
const GIF = Buffer.from("R0lGODlhAQABAAAAACw=", "base64");

let server: Server;
let base = "";
let onHang: () => void = () => undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/pic.png") {
      res.writeHead(200, { "content-type": "text/plain" }); // a lying content type: bytes decide
      res.end(PNG);
    } else if (req.url === "/hang") {
      onHang(); // never answered
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the test server has no TCP address");
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

function hangEntered(): Promise<void> {
  return new Promise((resolve) => {
    onHang = resolve;
  });
}

describe("read_image", () => {
  it("returns a file's image as a data URL, its type from the bytes", async () => {
    box = sandbox({ vision: true });
    writeFileSync(join(box.workspace, "pic.png"), PNG);
    writeFileSync(join(box.workspace, "anim.webp"), GIF); // misnamed GIF
    const r = await call(box.env, "read_image", { source: "pic.png" });
    expect(r.stopReason).toBe("completed");
    expect(r.final.images).toEqual([PNG_URL]);
    expect(r.output).toBe(`Loaded image pic.png (image/png, ${PNG.length} bytes)`);
    const gif = await call(box.env, "read_image", { source: "anim.webp" });
    expect(gif.final.images?.[0]?.startsWith("data:image/gif;base64,")).toBe(true);
  });

  it("fetches an image from a URL", async () => {
    box = sandbox({ vision: true });
    const r = await call(box.env, "read_image", { source: `${base}/pic.png` });
    expect(r.final.images).toEqual([PNG_URL]);
  });

  it("refuses non-images, oversized files and failed fetches", async () => {
    box = sandbox({ vision: true });
    writeFileSync(join(box.workspace, "notes.png"), "just text");
    writeFileSync(join(box.workspace, "huge.png"), PNG);
    truncateSync(join(box.workspace, "huge.png"), 5 * 1024 * 1024 + 1);
    const cases: [string, string][] = [
      ["notes.png", "notes.png is not a PNG, JPEG, GIF or WebP image."],
      ["huge.png", "The image is too large (5242881 bytes; the limit is 5242880)."],
      [`${base}/missing.png`, `Could not fetch ${base}/missing.png: HTTP 404`],
      ["nope.png", "File not found: nope.png"],
    ];
    for (const [source, message] of cases) {
      const r = await call(box.env, "read_image", { source });
      expect(r.stopReason).toBe("failed");
      expect(r.output).toBe(message);
      expect(r.final.images).toBeUndefined();
    }
  });

  it("keeps the image outside the truncation window", async () => {
    box = sandbox({ vision: true, limits: { outputChars: 10 } });
    writeFileSync(join(box.workspace, "pic.png"), PNG);
    const r = await call(box.env, "read_image", { source: "pic.png" }, { id: "img-trunc" });
    const archive = join(box.scratchpad, "truncated-tool-output", "img-trunc.txt");
    expect(r.output.startsWith("Loaded ima\n[output truncated: showing the first 10 of")).toBe(true);
    expect(readFileSync(archive, "utf8")).toBe(`Loaded image pic.png (image/png, ${PNG.length} bytes)`);
    expect(r.final.images).toEqual([PNG_URL]);
  });

  it("times out on a server that never answers", async () => {
    const timeouts = manualTimeouts();
    box = sandbox({ vision: true, scheduleTimeout: timeouts.scheduleTimeout });
    const entered = hangEntered();
    const pending = call(box.env, "read_image", { source: `${base}/hang` });
    await entered;
    timeouts.fire();
    const r = await pending;
    expect(r.stopReason).toBe("timeout");
    expect(r.output).toBe("[timed out after 60000 ms]");
  });

  it("ends with aborted when interrupted mid-fetch", async () => {
    box = sandbox({ vision: true });
    const entered = hangEntered();
    const ctrl = new AbortController();
    const pending = call(box.env, "read_image", { source: `${base}/hang` }, { signal: ctrl.signal });
    await entered;
    ctrl.abort();
    const r = await pending;
    expect(r.stopReason).toBe("aborted");
    expect(r.output).toBe("[interrupted: tool aborted by user]");
  });
});

describe("describe_image", () => {
  it("hands the image and prompt to the describer and returns its text", async () => {
    const received: { image: string; prompt?: string }[] = [];
    box = sandbox({
      describeImage: async (input) => {
        received.push({ image: input.image, prompt: input.prompt });
        return "A single transparent pixel.";
      },
    });
    writeFileSync(join(box.workspace, "pic.png"), PNG);
    const r = await call(box.env, "describe_image", { source: "pic.png", prompt: "what colour?" });
    expect(r.stopReason).toBe("completed");
    expect(r.output).toBe("A single transparent pixel.");
    expect(received).toEqual([{ image: PNG_URL, prompt: "what colour?" }]);
    expect(r.final.images).toBeUndefined();
  });

  it("fails clearly without a describer, and when the describer fails", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "pic.png"), PNG);
    const none = await call(box.env, "describe_image", { source: "pic.png" });
    expect(none.stopReason).toBe("failed");
    expect(none.output).toContain("describe_image is not available: no vision model is configured");
    const broken = sandbox({ describeImage: async () => Promise.reject(new Error("vision model offline")) });
    try {
      writeFileSync(join(broken.workspace, "pic.png"), PNG);
      const r = await call(broken.env, "describe_image", { source: "pic.png" });
      expect(r.stopReason).toBe("failed");
      expect(r.output).toBe("The image could not be described: vision model offline");
    } finally {
      await broken.cleanup();
    }
  });

  it("truncates a long description and archives it", async () => {
    const text = "word ".repeat(5000);
    box = sandbox({ describeImage: async () => text });
    writeFileSync(join(box.workspace, "pic.png"), PNG);
    const r = await call(box.env, "describe_image", { source: "pic.png" }, { id: "describe-long" });
    expect(r.output.slice(0, 16000)).toBe(text.slice(0, 16000));
    expect(readFileSync(join(box.scratchpad, "truncated-tool-output", "describe-long.txt"), "utf8")).toBe(text);
  });

  it("times out and is interrupted while the describer works, which sees the signal", async () => {
    const timeouts = manualTimeouts();
    let entered: () => void = () => undefined;
    const signals: AbortSignal[] = [];
    box = sandbox({
      scheduleTimeout: timeouts.scheduleTimeout,
      describeImage: (input) =>
        new Promise((_resolve, reject) => {
          if (input.signal !== undefined) signals.push(input.signal);
          entered();
          input.signal?.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
        }),
    });
    writeFileSync(join(box.workspace, "pic.png"), PNG);
    let started = new Promise<void>((resolve) => (entered = resolve));
    const timedOut = call(box.env, "describe_image", { source: "pic.png" });
    await started;
    timeouts.fire();
    expect((await timedOut).output).toBe("[timed out after 90000 ms]");

    started = new Promise<void>((resolve) => (entered = resolve));
    const ctrl = new AbortController();
    const aborted = call(box.env, "describe_image", { source: "pic.png" }, { signal: ctrl.signal });
    await started;
    ctrl.abort();
    expect((await aborted).stopReason).toBe("aborted");
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
  });
});
