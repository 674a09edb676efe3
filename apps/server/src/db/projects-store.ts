/**
 * Projects, their members and their agents. A project row says who owns it; the project's
 * files (`<root>/<project>/`) are its content. Membership is many-to-many. The agents table
 * only remembers display metadata and creation time: the agent itself is its directory.
 */
import type { Database } from "better-sqlite3";

export interface ProjectRow {
  projectId: string;
  ownerUserId: string;
  name: string | null;
  createdAt: number;
}

export interface MemberRow {
  userId: string;
  createdAt: number;
}

export interface AgentRow {
  agentId: string;
  name: string | null;
  description: string | null;
  createdAt: number;
}

interface RawProject {
  project_id: string;
  owner_user_id: string;
  name: string | null;
  created_at: number;
}

interface RawAgent {
  agent_id: string;
  name: string | null;
  description: string | null;
  created_at: number;
}

const toProject = (r: RawProject): ProjectRow => ({ projectId: r.project_id, ownerUserId: r.owner_user_id, name: r.name, createdAt: r.created_at });
const toAgent = (r: RawAgent): AgentRow => ({ agentId: r.agent_id, name: r.name, description: r.description, createdAt: r.created_at });

export class ProjectStore {
  readonly #get;
  readonly #all;
  readonly #forUser;
  readonly #insert;
  readonly #rename;
  readonly #delete;
  readonly #reassign;
  readonly #members;
  readonly #isMember;
  readonly #addMember;
  readonly #removeMember;
  readonly #memberIds;
  readonly #agents;
  readonly #agent;
  readonly #insertAgent;
  readonly #deleteAgent;

  constructor(db: Database) {
    this.#get = db.prepare<[string], RawProject>("SELECT * FROM projects WHERE project_id = ?");
    this.#all = db.prepare<[], RawProject>("SELECT * FROM projects ORDER BY project_id");
    this.#forUser = db.prepare<[string, string], RawProject>(
      `SELECT * FROM projects WHERE owner_user_id = ?
        OR project_id IN (SELECT project_id FROM project_members WHERE user_id = ?)
        ORDER BY project_id`,
    );
    this.#insert = db.prepare<[string, string, string | null, number]>(
      "INSERT OR IGNORE INTO projects (project_id, owner_user_id, name, created_at) VALUES (?, ?, ?, ?)",
    );
    this.#rename = db.prepare<[string | null, string]>("UPDATE projects SET name = ? WHERE project_id = ?");
    this.#delete = db.prepare<[string]>("DELETE FROM projects WHERE project_id = ?");
    this.#reassign = db.prepare<[string, string]>("UPDATE projects SET owner_user_id = ? WHERE owner_user_id = ?");
    this.#members = db.prepare<[string], { user_id: string; created_at: number }>(
      "SELECT user_id, created_at FROM project_members WHERE project_id = ? ORDER BY user_id",
    );
    this.#isMember = db.prepare<[string, string], { n: number }>("SELECT 1 AS n FROM project_members WHERE project_id = ? AND user_id = ?");
    this.#addMember = db.prepare<[string, string, number]>("INSERT OR IGNORE INTO project_members (project_id, user_id, created_at) VALUES (?, ?, ?)");
    this.#removeMember = db.prepare<[string, string]>("DELETE FROM project_members WHERE project_id = ? AND user_id = ?");
    this.#memberIds = db.prepare<[string], { user_id: string }>("SELECT user_id FROM project_members WHERE project_id = ?");
    this.#agents = db.prepare<[string], RawAgent>("SELECT agent_id, name, description, created_at FROM agents WHERE project_id = ? ORDER BY agent_id");
    this.#agent = db.prepare<[string, string], RawAgent>("SELECT agent_id, name, description, created_at FROM agents WHERE project_id = ? AND agent_id = ?");
    this.#insertAgent = db.prepare<[string, string, string | null, string | null, number]>(
      "INSERT OR IGNORE INTO agents (project_id, agent_id, name, description, created_at) VALUES (?, ?, ?, ?, ?)",
    );
    this.#deleteAgent = db.prepare<[string, string]>("DELETE FROM agents WHERE project_id = ? AND agent_id = ?");
  }

  get(projectId: string): ProjectRow | undefined {
    const r = this.#get.get(projectId);
    return r === undefined ? undefined : toProject(r);
  }

  all(): ProjectRow[] {
    return this.#all.all().map(toProject);
  }

  /** Projects the user owns or is a member of. */
  forUser(userId: string): ProjectRow[] {
    return this.#forUser.all(userId, userId).map(toProject);
  }

  /** Inserts unless the project exists; true when it was inserted. */
  insert(project: ProjectRow): boolean {
    return this.#insert.run(project.projectId, project.ownerUserId, project.name, project.createdAt).changes > 0;
  }

  rename(projectId: string, name: string | null): void {
    this.#rename.run(name, projectId);
  }

  delete(projectId: string): void {
    this.#delete.run(projectId);
  }

  /** Moves every project `from` owns to `to` (a deleted user's projects go to the admin). */
  reassignOwner(from: string, to: string): void {
    this.#reassign.run(to, from);
  }

  members(projectId: string): MemberRow[] {
    return this.#members.all(projectId).map((r) => ({ userId: r.user_id, createdAt: r.created_at }));
  }

  memberIds(projectId: string): string[] {
    return this.#memberIds.all(projectId).map((r) => r.user_id);
  }

  isMember(projectId: string, userId: string): boolean {
    return this.#isMember.get(projectId, userId) !== undefined;
  }

  addMember(projectId: string, userId: string, now: number): void {
    this.#addMember.run(projectId, userId, now);
  }

  removeMember(projectId: string, userId: string): boolean {
    return this.#removeMember.run(projectId, userId).changes > 0;
  }

  agents(projectId: string): AgentRow[] {
    return this.#agents.all(projectId).map(toAgent);
  }

  agent(projectId: string, agentId: string): AgentRow | undefined {
    const r = this.#agent.get(projectId, agentId);
    return r === undefined ? undefined : toAgent(r);
  }

  insertAgent(projectId: string, agent: AgentRow): void {
    this.#insertAgent.run(projectId, agent.agentId, agent.name, agent.description, agent.createdAt);
  }

  deleteAgent(projectId: string, agentId: string): void {
    this.#deleteAgent.run(projectId, agentId);
  }
}
