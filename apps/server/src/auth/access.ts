/**
 * Authorization, in one place. Every route names what it touches (a project, an agent, a
 * session) and the level it needs; the route table calls this policy before the handler,
 * and handlers never check rights themselves.
 *
 * Rules:
 * - A project's owner and the admin may do everything in it; a member may read it and run
 *   sessions in it; the owner alone (or the admin) edits its models, vault, schedules,
 *   command policy, members and agents, renames or deletes it.
 * - A session or agent is reachable exactly when its project is: every member reads a
 *   colleague's sessions (history, stream, traces, files, state) and may fork them.
 * - Acting on a session (need `control`: running tasks, steering, follow-ups, aborting,
 *   answering approvals, compacting, its processes, writing its files, renaming, archiving,
 *   changing its settings, deleting it) is for its creator, a project owner and the admin.
 *   A session with no recorded creator (made by the CLI, the SDK or a schedule on the same
 *   data root) is controlled by owners and the admin only. A member who can see the session
 *   but may not act on it gets 403 `forbidden`: hiding a session they can read would be a lie.
 *   The matrix is written out in apps/server/README.md.
 * - Anything the user may not reach answers 404, the same as something that does not exist,
 *   so ids cannot be probed. That includes a member asking for an owner-only operation.
 */
import { existsSync } from "node:fs";
import { agentPaths, isSessionId, PROJECT_OR_AGENT_ID, projectPaths, type AgentPaths, type ProjectPaths } from "@penguin/core";
import type { ProjectRow } from "../db/projects-store.js";
import type { SessionRow } from "../db/sessions-store.js";
import type { Stores } from "../db/stores.js";
import { ApiError, notFound } from "../http/api-error.js";
import type { AuthUser } from "../http/request-context.js";
import type { SessionCreators } from "../db/session-creators-store.js";
import { audienceMemo, type AudienceOf } from "./audience-memo.js";

/** `read`: see (and fork, and create sessions); `control`: act on a session (see the rules above); `owner`: configure and manage. */
export type Need = "read" | "control" | "owner";
export type ProjectRole = "owner" | "member" | "admin";

export interface ProjectGrant {
  project: ProjectRow;
  role: ProjectRole;
  paths: ProjectPaths;
}

export interface AgentGrant extends ProjectGrant {
  agent: AgentPaths;
}

export interface SessionGrant extends AgentGrant {
  session: SessionRow;
}

export class AccessPolicy {
  readonly #stores: Stores;
  readonly #root: string;

  readonly #creators: SessionCreators;

  constructor(stores: Stores, root: string, creators: SessionCreators) {
    this.#stores = stores;
    this.#root = root;
    this.#creators = creators;
  }

  /** Records who created a web session (the create and fork routes). */
  recordCreator(sessionId: string, userId: string): void {
    this.#creators.record(sessionId, userId);
  }

  /** Whether the server made this session for a person (the create and fork routes record a creator). */
  createdHere(sessionId: string): boolean {
    return this.#creators.creatorOf(sessionId) !== undefined;
  }

  /** Whether the user may control the session (see the rules above); `grant` is their read grant of it. */
  mayControl(user: AuthUser, grant: SessionGrant): boolean {
    return grant.role !== "member" || this.#creators.creatorOf(grant.session.sessionId) === user.userId;
  }

  /** Throws the 403 for a member who may read but not control the session. */
  requireControl(user: AuthUser, grant: SessionGrant): void {
    if (!this.mayControl(user, grant)) {
      throw new ApiError(403, "forbidden", "only the session's creator, a project owner or the admin may act on this session (run tasks, steer, abort, answer approvals, rename, archive, change settings, delete); you may read and fork it");
    }
  }

  /** The user's role in a project, or undefined when they have none. */
  roleIn(user: AuthUser, project: ProjectRow): ProjectRole | undefined {
    if (project.ownerUserId === user.userId) return "owner";
    if (user.isAdmin) return "admin";
    return this.#stores.projects.isMember(project.projectId, user.userId) ? "member" : undefined;
  }

  project(user: AuthUser, projectId: string, need: Need): ProjectGrant {
    const project = PROJECT_OR_AGENT_ID.test(projectId) ? this.#stores.projects.get(projectId) : undefined;
    const role = project === undefined ? undefined : this.roleIn(user, project);
    if (project === undefined || role === undefined || !allows(role, need)) throw notFound(`project ${projectId}`);
    return { project, role, paths: projectPaths(this.#root, project.projectId) };
  }

  agent(user: AuthUser, projectId: string, agentId: string, need: Need): AgentGrant {
    const grant = this.project(user, projectId, need);
    if (!PROJECT_OR_AGENT_ID.test(agentId)) throw notFound(`agent ${agentId}`);
    const agent = agentPaths(this.#root, grant.project.projectId, agentId);
    if (!existsSync(agent.agentState)) throw notFound(`agent ${agentId}`);
    return { ...grant, agent };
  }

  session(user: AuthUser, sessionId: string, need: Need): SessionGrant {
    const session = isSessionId(sessionId) ? this.#stores.sessions.get(sessionId) : undefined;
    if (session === undefined) throw notFound(`session ${sessionId}`);
    let grant: SessionGrant;
    try {
      grant = { ...this.agent(user, session.projectId, session.agentId, need === "control" ? "read" : need), session };
    } catch {
      throw notFound(`session ${sessionId}`);
    }
    if (need === "control") this.requireControl(user, grant);
    return grant;
  }

  /** Projects the user can see: all of them for the admin. */
  visibleProjects(user: AuthUser): ProjectRow[] {
    return user.isAdmin ? this.#stores.projects.all() : this.#stores.projects.forUser(user.userId);
  }

  /** Every user who can see a project (owner, members, admins): the audience of its events. */
  audience(projectId: string): string[] {
    return this.#stores.projects.audienceIds(projectId);
  }

  /** `audience`, remembered for one burst of events and emptied by any change of access (auth/audience-memo.ts). */
  audienceMemo(): AudienceOf {
    return audienceMemo((projectId) => this.audience(projectId), () => this.#stores.projects.accessChanges + this.#stores.users.accessChanges);
  }
}

function allows(role: ProjectRole, need: Need): boolean {
  return need !== "owner" || role !== "member";
}
