/**
 * `penguin acp`'s protocol side: the ACP agent app (the official SDK's `agent()`), its
 * handlers, and how each maps to our SDK.
 *
 *   initialize        protocol v1; capabilities: load, list, resume, close; text and embedded
 *                     context prompts; our extension methods under `_meta.penguin`
 *   session/new       agent.createSession in `cwd` (persisted at once, so it is listed), with the
 *                     editor's MCP servers started as the agent's own are (editor-mcp-servers.ts);
 *                     load and resume start them too
 *   session/load      agent.resumeSession, then the trace replayed as session/update
 *   session/resume    agent.resumeSession, nothing replayed
 *   session/fork      (unstable in the protocol; declared as sessionCapabilities.fork) a new
 *                     session from the source's last completed task, as `penguin fork`, opened
 *                     here like a resume (the editor's MCP servers started); same workspace
 *   session/list      the traces of the agent (history.ts), optionally those working in `cwd`,
 *                     LIST_PAGE_SIZE a page, the rest behind `nextCursor`
 *   session/close     dispose: the turn aborted, the lease let go
 *   session/set_mode  the approval mode (approval-modes.ts), recorded as settings_changed
 *   session/prompt    session.run; every message mapped (session-updates.ts) and sent before
 *                     the answer, which is `end_turn` or `cancelled`; a failed task is an error
 *   session/cancel    aborts the running turn (the engine records `abort` in the trace)
 *
 * Approvals go through the editor (client-permission.ts) under the approval mode `penguin acp`
 * was started with; file writes through the editor's fs when it offers them (client-files.ts).
 * The SDK is loaded by the caller (it is bundled apart, import() only) and handed in.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { Agent, ApprovalMode, ApproveFn, CreateAgentOptions, Session } from "@penguin/core";
import { APPROVAL_MODES, approveForMode, isApprovalMode } from "@penguin/core";
import { OutcomeTracker } from "../session/outcome.js";
import { describeOutcome } from "../session/outcome-message.js";
import { recordTitleOnce } from "../session/session-title.js";
import { AnnouncedCalls } from "./announced-calls.js";
import { modeState } from "./approval-modes.js";
import { clientWriteFileOperations } from "./client-files.js";
import { askThroughClient } from "./client-permission.js";
import { editorMcpServers, InvalidEditorMcpServers } from "./editor-mcp-servers.js";
import { parseSessionFork, SESSION_FORK } from "./session-fork.js";
import { EXTENSION_METHODS, forkAt, inspectAt, InvalidExtensionParams, parseFork, parseInspect, parseReplay, replaySession } from "./extensions.js";
import { InvalidListCursor, isRecordedWorkspace, listSessions, recordedWorkspace, sessionMessages } from "./history.js";
import { OpenSessions, type OpenSession } from "./open-sessions.js";
import { InvalidPrompt, promptText } from "./prompt-text.js";
import { replayUpdates, SessionUpdateMapper } from "./session-updates.js";

export interface AcpAgentOptions {
  /** createAgent's options for every agent this connection opens (root, project, agent, sandbox, sleep). */
  agentOptions: CreateAgentOptions;
  mode: ApprovalMode;
  /** The mode was given with `--approve`: it also applies to loaded and resumed sessions. */
  modeGiven: boolean;
  version: string;
}

type Sdk = typeof acp;

/** Our errors as JSON-RPC errors: bad params say what is wrong; anything else keeps its message. */
function asRequestError(sdk: Sdk, error: unknown): Error {
  if (error instanceof sdk.RequestError) return error;
  if (error instanceof InvalidPrompt || error instanceof InvalidExtensionParams || error instanceof InvalidEditorMcpServers || error instanceof InvalidListCursor) return sdk.RequestError.invalidParams(undefined, error.message);
  const message = error instanceof Error ? error.message : String(error);
  // core's own refusal of an argument (an editor's MCP server reusing a configured name, say).
  if (error instanceof Error && error.name === "PenguinError" && (error as { code?: unknown }).code === "invalid_argument") return sdk.RequestError.invalidParams(undefined, message);
  return new sdk.RequestError(-32603, message);
}

async function answering<T>(sdk: Sdk, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asRequestError(sdk, error);
  }
}

/** A params parser whose complaints reach the client as `invalid params` with our message. */
function parser<P>(sdk: Sdk, parse: (params: unknown) => P): (params: unknown) => P {
  return (params) => {
    try {
      return parse(params);
    } catch (error) {
      throw asRequestError(sdk, error);
    }
  };
}

export function buildAcpAgent(sdk: Sdk, options: AcpAgentOptions): { app: acp.AgentApp; sessions: OpenSessions } {
  const sessions = new OpenSessions();
  let clientCapabilities: acp.ClientCapabilities | undefined;
  let connection: acp.AgentContext | undefined;
  let baseAgent: Promise<Agent> | undefined;

  const core = () => import("@penguin/core");
  const sharedAgent = (): Promise<Agent> => (baseAgent ??= core().then(({ createAgent }) => createAgent(options.agentOptions)));

  /** An agent for one session: its file writes go through the editor when the editor offers them. */
  async function sessionAgent(sessionId: () => string): Promise<Agent> {
    const { createAgent, localFileOperations } = await core();
    const client = connection;
    if (clientCapabilities?.fs?.writeTextFile !== true || client === undefined) return createAgent(options.agentOptions);
    const fileOperations = clientWriteFileOperations(localFileOperations, async (path, content, signal) => {
      await client.request(sdk.methods.client.fs.writeTextFile, { sessionId: sessionId(), path, content }, { cancellationSignal: signal });
    });
    return createAgent({ ...options.agentOptions, environment: { ...options.agentOptions.environment, fileOperations } });
  }

  function mustBeOpen(sessionId: string): OpenSession {
    const open = sessions.get(sessionId);
    if (open === undefined) throw sdk.RequestError.invalidParams({ sessionId }, `session ${sessionId} is not open on this connection: open it with session/new, session/load or session/resume first`);
    return open;
  }

  async function openExisting(sessionId: string, editorServers: readonly acp.McpServer[] | undefined): Promise<OpenSession> {
    if (sessions.get(sessionId) !== undefined) throw sdk.RequestError.invalidParams({ sessionId }, `session ${sessionId} is already open on this connection`);
    const mcpServers = await editorMcpServers(editorServers);
    const agent = await sessionAgent(() => sessionId);
    const session = await agent.resumeSession({ sessionId, ...(mcpServers === undefined ? {} : { mcpServers }) });
    const recorded = session.recordedApprovalMode;
    const mode = !options.modeGiven && isApprovalMode(recorded) ? recorded : options.mode;
    const open: OpenSession = { session, agent, mode };
    sessions.add(open);
    return open;
  }

  async function notify(sessionId: string, update: acp.SessionUpdate): Promise<void> {
    await connection?.notify(sdk.methods.client.session.update, { sessionId, update });
  }

  async function runTurn(open: OpenSession, prompt: readonly acp.ContentBlock[], requestSignal: AbortSignal): Promise<acp.PromptResponse> {
    const session: Session = open.session;
    if (open.turn !== undefined) throw sdk.RequestError.invalidRequest({ sessionId: session.id }, `a prompt is already running in session ${session.id}: wait for its answer or send session/cancel`);
    const text = promptText(prompt);
    const turn = new AbortController();
    open.turn = turn;
    const onRequestCancelled = (): void => turn.abort();
    requestSignal.addEventListener("abort", onRequestCancelled);
    const client = connection;
    const announced = new AnnouncedCalls();
    const ask = askThroughClient(
      session.id,
      session.workspace,
      (request, signal) =>
        client === undefined ? Promise.reject(new Error("no client connection")) : client.request(sdk.methods.client.session.requestPermission, request, signal === undefined ? {} : { cancellationSignal: signal }),
      (toolCallId, signal) => announced.wait(toolCallId, signal),
    );
    // The mode at each call, so a session/set_mode during the turn applies from the next call on.
    session.setApprovalMode(open.mode);
    const approve: ApproveFn = (call, ctx) => approveForMode(open.mode, { permissionOf: (name) => session.toolPermission(name), ask })(call, ctx);
    const outcome = new OutcomeTracker(() => turn.signal.aborted);
    const mapper = new SessionUpdateMapper(session.workspace, session.meta.model_context_window);
    try {
      await recordTitleOnce(session, text);
      for await (const m of session.run(text, { approve, signal: turn.signal })) {
        outcome.observe(m);
        for (const update of mapper.map(m)) {
          await notify(session.id, update);
          if (update.sessionUpdate === "tool_call") announced.mark(update.toolCallId);
        }
      }
    } finally {
      requestSignal.removeEventListener("abort", onRequestCancelled);
      open.turn = undefined;
    }
    const result = outcome.outcome;
    if (result.kind === "done") return { stopReason: "end_turn" };
    if (result.kind === "aborted") return { stopReason: "cancelled" };
    const message = describeOutcome(result, { provider: session.provider, modelId: session.modelId, baseUrl: undefined }) ?? result.kind;
    throw new sdk.RequestError(-32603, message, { outcome: result.kind });
  }

  const app = sdk
    .agent({ name: "penguin" })
    .onConnect((agentConnection) => {
      connection = agentConnection.client;
    })
    .onRequest(sdk.methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: sdk.PROTOCOL_VERSION,
        agentInfo: { name: "penguin", title: "PenguinHarness", version: options.version },
        authMethods: [],
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {}, fork: {} },
          _meta: { penguin: { extensions: Object.values(EXTENSION_METHODS), approvalMode: options.mode } },
        },
      };
    })
    .onRequest(sdk.methods.agent.session.new, ({ params }) =>
      answering(sdk, async () => {
        let id = "";
        const mcpServers = await editorMcpServers(params.mcpServers);
        const agent = await sessionAgent(() => id);
        const session = await agent.createSession({ workspaceDir: params.cwd, approvalMode: options.mode, persist: true, client: "acp", ...(mcpServers === undefined ? {} : { mcpServers }) });
        id = session.id;
        sessions.add({ session, agent, mode: options.mode });
        return { sessionId: session.id, modes: modeState(options.mode, APPROVAL_MODES) };
      }),
    )
    .onRequest(sdk.methods.agent.session.load, ({ params }) =>
      answering(sdk, async () => {
        const open = await openExisting(params.sessionId, params.mcpServers);
        const messages = await sessionMessages(open.agent, params.sessionId);
        for (const update of replayUpdates(messages, open.session.workspace)) await notify(params.sessionId, update);
        return { modes: modeState(open.mode, APPROVAL_MODES) };
      }),
    )
    .onRequest(sdk.methods.agent.session.resume, ({ params }) =>
      answering(sdk, async () => {
        const open = await openExisting(params.sessionId, params.mcpServers);
        return { modes: modeState(open.mode, APPROVAL_MODES) };
      }),
    )
    .onRequest(SESSION_FORK, parser(sdk, parseSessionFork), ({ params }) =>
      answering(sdk, async () => {
        if (sessions.get(params.sessionId)?.turn !== undefined) throw sdk.RequestError.invalidRequest({ sessionId: params.sessionId }, "the session is running a prompt: fork it once the turn has ended");
        const agent = await sharedAgent();
        const workspace = await recordedWorkspace(agent, params.sessionId);
        if (workspace === undefined) throw sdk.RequestError.invalidParams({ sessionId: params.sessionId }, `no session ${params.sessionId} of this agent: session/list gives the ids`);
        if (!isRecordedWorkspace(params.cwd, workspace)) throw sdk.RequestError.invalidParams({ cwd: params.cwd }, `a fork works in its source's workspace, ${workspace}: send that as cwd (or session/new for another folder)`);
        const forkId = await agent.forkSession({ sessionId: params.sessionId, client: "acp" });
        const open = await openExisting(forkId, params.mcpServers);
        return { sessionId: forkId, modes: modeState(open.mode, APPROVAL_MODES) };
      }),
    )
    .onRequest(sdk.methods.agent.session.list, ({ params }) =>
      answering(sdk, async () => {
        const page = await listSessions(await sharedAgent(), params.cwd ?? undefined, params.cursor ?? undefined);
        return { sessions: page.sessions, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
      }),
    )
    .onRequest(sdk.methods.agent.session.close, ({ params }) =>
      answering(sdk, async () => {
        await sessions.close(params.sessionId);
        return {};
      }),
    )
    .onRequest(sdk.methods.agent.session.setMode, ({ params }) =>
      answering(sdk, async () => {
        const open = mustBeOpen(params.sessionId);
        if (!isApprovalMode(params.modeId)) throw sdk.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode "${params.modeId}": use one of ${APPROVAL_MODES.join(", ")}`);
        open.mode = params.modeId;
        open.session.setApprovalMode(params.modeId);
        await notify(params.sessionId, { sessionUpdate: "current_mode_update", currentModeId: params.modeId });
        return {};
      }),
    )
    .onRequest(sdk.methods.agent.session.prompt, ({ params, signal }) => answering(sdk, () => runTurn(mustBeOpen(params.sessionId), params.prompt, signal)))
    .onNotification(sdk.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    })
    .onRequest(EXTENSION_METHODS.inspect, parser(sdk, parseInspect), ({ params }) => answering(sdk, async () => inspectAt(await sharedAgent(), params)))
    .onRequest(EXTENSION_METHODS.fork, parser(sdk, parseFork), ({ params }) =>
      answering(sdk, async () => {
        if (sessions.get(params.sessionId)?.turn !== undefined) throw sdk.RequestError.invalidRequest({ sessionId: params.sessionId }, "the session is running a prompt: fork it once the turn has ended");
        return forkAt(await sharedAgent(), params);
      }),
    )
    .onRequest(EXTENSION_METHODS.replay, parser(sdk, parseReplay), ({ params }) => answering(sdk, async () => replaySession(await sharedAgent(), params)));
  return { app, sessions };
}
