/**
 * The current project and what most pages need from it: its agents and its model table.
 * The choice of project persists in localStorage; by default it is the user's own
 * `<uid>-default_project` (or `<uid>_default_project`), else the first visible one.
 * `reloadModels()` is called after the Models page saves, so pickers elsewhere stay current.
 */
import { create } from "zustand";
import { errorText } from "../api/http";
import { getModels } from "../api/models";
import { listAgents, listProjects } from "../api/projects";
import type { AgentInfo, ModelTable, Project } from "../api/types";

const KEY = "penguin.project";

interface ProjectState {
  projects: Project[];
  projectId: string | undefined;
  agents: AgentInfo[];
  models: ModelTable | undefined;
  error: string | undefined;
  load(userId: string): Promise<void>;
  select(projectId: string): Promise<void>;
  reloadAgents(): Promise<void>;
  reloadModels(): Promise<void>;
}

function pick(projects: Project[], userId: string): string | undefined {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch {
    saved = null;
  }
  if (saved !== null && projects.some((p) => p.projectId === saved)) return saved;
  const own = projects.find((p) => p.projectId === `${userId}-default_project` || p.projectId === `${userId}_default_project`);
  return own?.projectId ?? projects.find((p) => p.ownerUserId === userId)?.projectId ?? projects[0]?.projectId;
}

export const useProject = create<ProjectState>((set, get) => ({
  projects: [],
  projectId: undefined,
  agents: [],
  models: undefined,
  error: undefined,
  async load(userId) {
    try {
      const projects = await listProjects();
      const projectId = pick(projects, userId);
      set({ projects, error: undefined });
      if (projectId !== undefined) await get().select(projectId);
    } catch (e) {
      set({ error: errorText(e) });
    }
  },
  async select(projectId) {
    try {
      localStorage.setItem(KEY, projectId);
    } catch {
      // not persisted
    }
    set({ projectId, agents: [], models: undefined });
    await Promise.all([get().reloadAgents(), get().reloadModels()]);
  },
  async reloadAgents() {
    const projectId = get().projectId;
    if (projectId === undefined) return;
    try {
      const agents = await listAgents(projectId);
      if (get().projectId === projectId) set({ agents });
    } catch (e) {
      set({ error: errorText(e) });
    }
  },
  async reloadModels() {
    const projectId = get().projectId;
    if (projectId === undefined) return;
    try {
      const models = await getModels(projectId);
      if (get().projectId === projectId) set({ models });
    } catch (e) {
      set({ error: errorText(e) });
    }
  },
}));

/** True when the signed-in user may edit the project's models, vault and agents. */
export function canEditProject(projects: Project[], projectId: string | undefined): boolean {
  const p = projects.find((x) => x.projectId === projectId);
  return p !== undefined && (p.role === "owner" || p.role === "admin");
}
