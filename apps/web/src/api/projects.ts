/**
 * Projects, their agents, chat defaults and the server's directory browser (workspace
 * picker). SPEC §9 `/api/projects`, `P/agents`, `P/chat-defaults`, `P/dirs`.
 */
import { decodeAnswer, reportUndecoded } from "./contract-decode";
import { AgentListShape, ProjectListShape } from "@penguin/server/contract-shapes";
import { get, post, put, seg, withQuery } from "./http";
import { asRecord, listOf, oneOf, str } from "./read";
import { APPROVAL_MODES, THINKING_LEVELS, type AgentInfo, type ApprovalMode, type DirListing, type Project, type ThinkingLevel } from "./types";

export const projectPath = (p: string) => `/api/projects/${seg(p)}`;

export async function listProjects(): Promise<Project[]> {
  const raw = await get("/api/projects");
  const decoded = decodeAnswer("ProjectList", ProjectListShape, raw);
  if (decoded.ok) return decoded.value.projects.map(({ projectId, name, ownerUserId, role }) => ({ projectId, name, ownerUserId, role }));
  reportUndecoded("ProjectList", decoded.error);
  return listOf(raw, "projects").flatMap((raw) => {
    const o = asRecord(raw);
    const projectId = str(o, "projectId");
    if (projectId === undefined) return [];
    return [{ projectId, name: str(o, "name") ?? null, ownerUserId: str(o, "ownerUserId") ?? "", role: oneOf(o.role, ["owner", "member", "admin"] as const) ?? "member" }];
  });
}

export async function listAgents(projectId: string): Promise<AgentInfo[]> {
  const raw = await get(`${projectPath(projectId)}/agents`);
  const decoded = decodeAnswer("AgentList", AgentListShape, raw);
  if (decoded.ok) return decoded.value.agents.map(({ agentId, name, description }) => ({ agentId, name, description }));
  reportUndecoded("AgentList", decoded.error);
  return listOf(raw, "agents").flatMap((raw) => {
    const o = asRecord(raw);
    const agentId = str(o, "agentId");
    return agentId === undefined ? [] : [{ agentId, name: str(o, "name") ?? null, description: str(o, "description") ?? null }];
  });
}

export const createAgent = (projectId: string, agentId: string, name?: string) =>
  post(`${projectPath(projectId)}/agents`, name === undefined || name === "" ? { agentId } : { agentId, name });

export interface ChatDefaults {
  agentId?: string;
  workspace?: string;
  approvalMode?: ApprovalMode;
  thinkingLevel?: ThinkingLevel;
}

export async function getChatDefaults(projectId: string): Promise<ChatDefaults> {
  const o = asRecord(await get(`${projectPath(projectId)}/chat-defaults`));
  const d: ChatDefaults = {};
  const agentId = str(o, "agentId");
  const workspace = str(o, "workspace");
  const approvalMode = oneOf(o.approvalMode, APPROVAL_MODES);
  const thinkingLevel = oneOf(o.thinkingLevel, THINKING_LEVELS);
  if (agentId !== undefined) d.agentId = agentId;
  if (workspace !== undefined) d.workspace = workspace;
  if (approvalMode !== undefined) d.approvalMode = approvalMode;
  if (thinkingLevel !== undefined) d.thinkingLevel = thinkingLevel;
  return d;
}

export const putChatDefaults = (projectId: string, defaults: ChatDefaults) => put(`${projectPath(projectId)}/chat-defaults`, defaults);

export async function listDirs(projectId: string, path?: string): Promise<DirListing> {
  const o = asRecord(await get(withQuery(`${projectPath(projectId)}/dirs`, { path })));
  const dirs = listOf(o.dirs ?? o.entries).flatMap((d) => (typeof d === "string" ? [d] : (str(asRecord(d), "name") ?? [])));
  const roots = listOf(o.roots).filter((r): r is string => typeof r === "string");
  return { path: str(o, "path") ?? path ?? "/", parent: str(o, "parent") ?? null, dirs, roots };
}
