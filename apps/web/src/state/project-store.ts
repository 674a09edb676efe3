/**
 * The current project and what most pages need from it: its agents and its model table.
 * The choice of project persists in localStorage; by default it is the user's own
 * `<uid>-default_project` (or `<uid>_default_project`), else the first visible one.
 * `reloadModels()` is called after the Models page saves, so pickers elsewhere stay current.
 *
 * A module-level Solid store; agents and projects are reconciled by id so rows that did not
 * change keep their identity (and their DOM) across reloads.
 */
import { createStore, reconcile } from "solid-js/store";
import { errorText } from "../api/http";
import { getModels } from "../api/models";
import { listAgents, listProjects } from "../api/projects";
import type { AgentInfo, ModelTable, Project } from "../api/types";

const KEY = "penguin.project";

export interface ProjectState {
  projects: Project[];
  projectId: string | undefined;
  agents: AgentInfo[];
  models: ModelTable | undefined;
  error: string | undefined;
}

const [project, setProject] = createStore<ProjectState>({ projects: [], projectId: undefined, agents: [], models: undefined, error: undefined });
export { project };

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

/** Who the projects were loaded for, so a retry can load them again. */
let signedInUser: string | undefined;

export async function loadProjects(userId: string): Promise<void> {
  signedInUser = userId;
  try {
    const projects = await listProjects();
    const projectId = pick(projects, userId);
    setProject("projects", reconcile(projects, { key: "projectId" }));
    setProject("error", undefined);
    if (projectId !== undefined) await selectProject(projectId);
  } catch (e) {
    setProject("error", errorText(e));
  }
}

export async function selectProject(projectId: string): Promise<void> {
  try {
    localStorage.setItem(KEY, projectId);
  } catch {
    // not persisted
  }
  setProject({ projectId, agents: [], models: undefined });
  await Promise.all([reloadAgents(), reloadModels()]);
}

export async function reloadAgents(): Promise<void> {
  const projectId = project.projectId;
  if (projectId === undefined) return;
  try {
    const agents = await listAgents(projectId);
    if (project.projectId === projectId) setProject("agents", reconcile(agents, { key: "agentId" }));
  } catch (e) {
    setProject("error", errorText(e));
  }
}

export async function reloadModels(): Promise<void> {
  const projectId = project.projectId;
  if (projectId === undefined) return;
  try {
    const models = await getModels(projectId);
    if (project.projectId === projectId) setProject("models", models);
  } catch (e) {
    setProject("error", errorText(e));
  }
}

/**
 * After a failed load (a page's Retry): clears the error and loads again what a page waits
 * for: the project list when none is chosen yet, else the project's agents and models.
 */
export async function retryProjectLoad(): Promise<void> {
  setProject("error", undefined);
  if (project.projectId !== undefined) await Promise.all([reloadAgents(), reloadModels()]);
  else if (signedInUser !== undefined) await loadProjects(signedInUser);
}

/** True when the signed-in user may edit the project's models, vault and agents. */
export function canEditProject(projects: readonly Project[], projectId: string | undefined): boolean {
  const p = projects.find((x) => x.projectId === projectId);
  return p !== undefined && (p.role === "owner" || p.role === "admin");
}
