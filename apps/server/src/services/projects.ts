/**
 * Project lifecycle on disk and in the index: creating a project (its row, its folder and a
 * ready `default_agent`), each user's personal project, and deletion (the folder goes too).
 *
 * Personal projects are `<uid>_default_project`: core's project-id pattern
 * (`^[a-z][a-z0-9_]{1,63}$`) forbids `-`, so the SPEC's `<uid>-default_project` is spelled
 * with an underscore. `default_project` (the admin's, shared with the CLI) and personal
 * projects cannot be deleted.
 */
import { rmSync } from "node:fs";
import { createAgent, DEFAULT_AGENT, DEFAULT_PROJECT, dropProjectTrash, projectPaths } from "@penguin/core";
import type { ProjectRow } from "../db/projects-store.js";
import type { Stores } from "../db/stores.js";
import { conflict } from "../http/api-error.js";

export function personalProjectId(userId: string): string {
  return `${userId}_default_project`;
}

export function isProtectedProject(project: ProjectRow): boolean {
  return project.projectId === DEFAULT_PROJECT || project.projectId === personalProjectId(project.ownerUserId);
}

/** Creates the row (unless present), the folder and the default agent. Idempotent. */
export async function ensureProject(root: string, stores: Stores, project: { projectId: string; ownerUserId: string; name: string | null }, now: number): Promise<ProjectRow> {
  stores.projects.insert({ ...project, createdAt: now });
  await createAgent({ root, projectId: project.projectId, agentId: DEFAULT_AGENT, env: {} });
  stores.projects.insertAgent(project.projectId, { agentId: DEFAULT_AGENT, name: null, description: null, createdAt: now });
  const row = stores.projects.get(project.projectId);
  if (row === undefined) throw new Error(`project ${project.projectId} was not created`);
  return row;
}

export async function createProject(root: string, stores: Stores, project: { projectId: string; ownerUserId: string; name: string | null }, now: number): Promise<ProjectRow> {
  if (stores.projects.get(project.projectId) !== undefined) throw conflict("already_exists", `project ${project.projectId} already exists`);
  return ensureProject(root, stores, project, now);
}

export function deleteProjectFiles(root: string, stores: Stores, project: ProjectRow): void {
  if (isProtectedProject(project)) throw conflict("protected", `${project.projectId} is a default project and cannot be deleted`);
  for (const id of stores.sessions.idsInProject(project.projectId)) stores.sessions.delete(id);
  stores.projects.delete(project.projectId);
  rmSync(projectPaths(root, project.projectId).projectDir, { recursive: true, force: true });
  // Its trashed sessions go with it: a project created later under the same id must not find them.
  dropProjectTrash(root, project.projectId);
}
