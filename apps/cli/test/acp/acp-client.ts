// An editor for the ACP tests: the official SDK's client-side connection over the stdio of a
// real `penguin acp` child (the built CLI). It answers permission requests from a queue the
// test fills, applies `fs/write_text_file` to the disk as an editor would (and records each),
// collects every session/update per session, and lets a test wait for an update by predicate.
// Every line the child writes on stdout is also kept raw, so a test can check that stdout
// carried nothing but JSON-RPC.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { CLI_MAIN } from "../helpers/paths.js";

export interface EditorOptions {
  env: NodeJS.ProcessEnv;
  args?: string[];
  /** Advertise fs/write_text_file (default true). */
  writeFiles?: boolean;
}

export interface Editor {
  child: ChildProcess;
  agent: acp.ClientContext;
  /** Every session/update received, per session id, in arrival order. */
  updates: Map<string, acp.SessionUpdate[]>;
  updatesOf(sessionId: string): acp.SessionUpdate[];
  /**
   * Answers for the next permission requests, in order: the option id to select, "cancelled",
   * or "hold": no answer until the agent cancels the request ($/cancel_request), then cancelled.
   */
  permissionAnswers: string[];
  permissionRequests: acp.RequestPermissionRequest[];
  /** Held permission requests the agent cancelled. */
  cancelledQuestions: () => number;
  /** Resolves once `count` permission requests have arrived. */
  waitForPermissionRequests(count: number): Promise<void>;
  /** Per permission request: whether its call's `tool_call` update had arrived before it. */
  announcedBeforeAsked: boolean[];
  writes: acp.WriteTextFileRequest[];
  stdoutLines(): string[];
  stderr(): string;
  waitForUpdate(sessionId: string, predicate: (u: acp.SessionUpdate) => boolean): Promise<acp.SessionUpdate>;
  /** Closes the child's stdin and waits for it to exit; returns its exit code. */
  close(): Promise<number | null>;
}

export function startEditor(options: EditorOptions): Editor {
  const child = spawn(process.execPath, [CLI_MAIN, "acp", ...(options.args ?? [])], { env: options.env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const updates = new Map<string, acp.SessionUpdate[]>();
  const waiters: { sessionId: string; predicate: (u: acp.SessionUpdate) => boolean; resolve: (u: acp.SessionUpdate) => void }[] = [];
  const permissionAnswers: string[] = [];
  const permissionRequests: acp.RequestPermissionRequest[] = [];
  const announcedBeforeAsked: boolean[] = [];
  let cancelledQuestions = 0;
  const permissionWaiters: { count: number; resolve: () => void }[] = [];
  const writes: acp.WriteTextFileRequest[] = [];
  const updatesOf = (sessionId: string): acp.SessionUpdate[] => {
    let list = updates.get(sessionId);
    if (list === undefined) updates.set(sessionId, (list = []));
    return list;
  };

  const app = acp
    .client({ name: "penguin-acp-test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updatesOf(params.sessionId).push(params.update);
      for (const w of waiters.filter((x) => x.sessionId === params.sessionId && x.predicate(params.update))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(params.update);
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }): Promise<acp.RequestPermissionResponse> => {
      permissionRequests.push(params);
      announcedBeforeAsked.push(updatesOf(params.sessionId).some((u) => u.sessionUpdate === "tool_call" && u.toolCallId === params.toolCall.toolCallId));
      for (const w of permissionWaiters.filter((x) => permissionRequests.length >= x.count)) {
        permissionWaiters.splice(permissionWaiters.indexOf(w), 1);
        w.resolve();
      }
      const answer = permissionAnswers.shift();
      if (answer === undefined) throw new Error(`the test gave no answer for the permission request of ${params.toolCall.title ?? params.toolCall.toolCallId}`);
      if (answer === "hold") {
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
        cancelledQuestions += 1;
        return { outcome: { outcome: "cancelled" } };
      }
      return answer === "cancelled" ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId: answer } };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      writes.push(params);
      mkdirSync(dirname(params.path), { recursive: true });
      writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: readFileSync(params.path, "utf8") }));

  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin!), Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  return {
    child,
    agent: connection.agent,
    updates,
    updatesOf,
    permissionAnswers,
    permissionRequests,
    cancelledQuestions: () => cancelledQuestions,
    waitForPermissionRequests(count) {
      if (permissionRequests.length >= count) return Promise.resolve();
      return new Promise((resolve) => permissionWaiters.push({ count, resolve }));
    },
    announcedBeforeAsked,
    writes,
    stdoutLines: () => stdout.split("\n").filter((l) => l !== ""),
    stderr: () => stderr,
    waitForUpdate(sessionId, predicate) {
      const seen = updatesOf(sessionId).find(predicate);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ sessionId, predicate, resolve }));
    },
    async close() {
      child.stdin!.end();
      const code = await exit;
      connection.close();
      return code;
    },
  };
}

export async function initialize(editor: Editor, writeFiles = true): Promise<acp.InitializeResponse> {
  return editor.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: writeFiles, writeTextFile: writeFiles }, terminal: false },
    clientInfo: { name: "penguin-acp-test-editor", version: "1.0.0" },
  });
}

/**
 * Updates as an editor shows them: consecutive chunks of one kind joined into one message.
 * Live, text streams in many chunks; a load replays each complete message as one.
 */
export function asShown(updates: readonly acp.SessionUpdate[]): acp.SessionUpdate[] {
  const shown: acp.SessionUpdate[] = [];
  for (const u of updates) {
    const last = shown[shown.length - 1];
    const isChunk = u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "agent_thought_chunk" || u.sessionUpdate === "user_message_chunk";
    if (isChunk && last !== undefined && last.sessionUpdate === u.sessionUpdate && "content" in last && last.content.type === "text" && u.content.type === "text") {
      shown[shown.length - 1] = { ...last, content: { type: "text", text: last.content.text + u.content.text } };
      continue;
    }
    shown.push(u);
  }
  return shown;
}
