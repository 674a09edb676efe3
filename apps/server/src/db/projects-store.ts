/**
 * Projects, their members and their agents. A project row says who owns it; the project's
 * files (`<root>/<project>/`) are its content. Membership is many-to-many. The agents table
 * only remembers display metadata and creation time: the agent itself is its directory.
 */
import type { Selectable } from "kysely";
import type { FactsDb } from "./facts-db.js";
import type { AgentsTable, ProjectsTable } from "./facts-schema.js";

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

type RawAgent = Pick<Selectable<AgentsTable>, "agent_id" | "name" | "description" | "created_at">;

const toProject = (r: Selectable<ProjectsTable>): ProjectRow => ({ projectId: r.project_id, ownerUserId: r.owner_user_id, name: r.name, createdAt: r.created_at });
const toAgent = (r: RawAgent): AgentRow => ({ agentId: r.agent_id, name: r.name, description: r.description, createdAt: r.created_at });

export class ProjectStore {
  readonly #facts: FactsDb;
  readonly #get;
  readonly #isMember;
  readonly #audience;
  #accessChanges = 0;

  constructor(facts: FactsDb) {
    this.#facts = facts;
    // The access checks of every project-scoped request: compiled once.
    this.#get = facts.prepare(1, (projectId: string) => facts.query.selectFrom("projects").selectAll().where("project_id", "=", projectId));
    this.#isMember = facts.prepare(2, (projectId: string, userId: string) =>
      facts.query.selectFrom("project_members").select((eb) => eb.lit(1).as("n")).where("project_id", "=", projectId).where("user_id", "=", userId),
    );
    // Who can see a project in one statement (owner, members, and the admins when the project
    // exists): every project event asks it, and on PostgreSQL each statement is a round trip.
    this.#audience = facts.prepare(1, (projectId: string) =>
      facts.query
        .selectFrom("projects")
        .select("owner_user_id as user_id")
        .where("project_id", "=", projectId)
        .union(facts.query.selectFrom("project_members").select("user_id").where("project_id", "=", projectId))
        .union(
          facts.query
            .selectFrom("users")
            .select("user_id")
            .where("is_admin", "=", 1)
            .where((eb) => eb.exists(eb.selectFrom("projects").select("project_id").where("project_id", "=", projectId))),
        ),
    );
  }

  /**
   * How many changes of who can see a project (a project made or deleted, its owner or members
   * changed) this store made: an audience remembered before one is stale (auth/audience-memo.ts).
   */
  get accessChanges(): number {
    return this.#accessChanges;
  }

  get(projectId: string): ProjectRow | undefined {
    const r = this.#get.first(projectId);
    return r === undefined ? undefined : toProject(r);
  }

  all(): ProjectRow[] {
    return this.#facts.all(this.#facts.query.selectFrom("projects").selectAll().orderBy("project_id")).map(toProject);
  }

  /** Projects the user owns or is a member of. */
  forUser(userId: string): ProjectRow[] {
    const q = this.#facts.query
      .selectFrom("projects")
      .selectAll()
      .where((eb) => eb.or([eb("owner_user_id", "=", userId), eb("project_id", "in", eb.selectFrom("project_members").select("project_id").where("user_id", "=", userId))]))
      .orderBy("project_id");
    return this.#facts.all(q).map(toProject);
  }

  /** Inserts unless the project exists; true when it was inserted. */
  insert(project: ProjectRow): boolean {
    this.#accessChanges++;
    const q = this.#facts.query
      .insertInto("projects")
      .onConflict((oc) => oc.doNothing())
      .values({ project_id: project.projectId, owner_user_id: project.ownerUserId, name: project.name, created_at: project.createdAt });
    return this.#facts.run(q).changes > 0;
  }

  rename(projectId: string, name: string | null): void {
    this.#facts.run(this.#facts.query.updateTable("projects").set({ name }).where("project_id", "=", projectId));
  }

  delete(projectId: string): void {
    this.#accessChanges++;
    this.#facts.run(this.#facts.query.deleteFrom("projects").where("project_id", "=", projectId));
  }

  /** Moves every project `from` owns to `to` (a deleted user's projects go to the admin). */
  reassignOwner(from: string, to: string): void {
    this.#accessChanges++;
    this.#facts.run(this.#facts.query.updateTable("projects").set({ owner_user_id: to }).where("owner_user_id", "=", from));
  }

  members(projectId: string): MemberRow[] {
    const q = this.#facts.query.selectFrom("project_members").select(["user_id", "created_at"]).where("project_id", "=", projectId).orderBy("user_id");
    return this.#facts.all(q).map((r) => ({ userId: r.user_id, createdAt: r.created_at }));
  }

  /** Every user who can see the project: its owner, its members and the admins (none when it does not exist). */
  audienceIds(projectId: string): string[] {
    return this.#audience.all(projectId).map((r) => r.user_id);
  }

  memberIds(projectId: string): string[] {
    return this.#facts.all(this.#facts.query.selectFrom("project_members").select("user_id").where("project_id", "=", projectId)).map((r) => r.user_id);
  }

  isMember(projectId: string, userId: string): boolean {
    return this.#isMember.first(projectId, userId) !== undefined;
  }

  addMember(projectId: string, userId: string, now: number): void {
    this.#accessChanges++;
    this.#facts.run(this.#facts.query.insertInto("project_members").onConflict((oc) => oc.doNothing()).values({ project_id: projectId, user_id: userId, created_at: now }));
  }

  removeMember(projectId: string, userId: string): boolean {
    this.#accessChanges++;
    return this.#facts.run(this.#facts.query.deleteFrom("project_members").where("project_id", "=", projectId).where("user_id", "=", userId)).changes > 0;
  }

  agents(projectId: string): AgentRow[] {
    const q = this.#facts.query.selectFrom("agents").select(["agent_id", "name", "description", "created_at"]).where("project_id", "=", projectId).orderBy("agent_id");
    return this.#facts.all(q).map(toAgent);
  }

  agent(projectId: string, agentId: string): AgentRow | undefined {
    const q = this.#facts.query.selectFrom("agents").select(["agent_id", "name", "description", "created_at"]).where("project_id", "=", projectId).where("agent_id", "=", agentId);
    const r = this.#facts.first(q);
    return r === undefined ? undefined : toAgent(r);
  }

  insertAgent(projectId: string, agent: AgentRow): void {
    const q = this.#facts.query
      .insertInto("agents")
      .onConflict((oc) => oc.doNothing())
      .values({ project_id: projectId, agent_id: agent.agentId, name: agent.name, description: agent.description, created_at: agent.createdAt });
    this.#facts.run(q);
  }

  deleteAgent(projectId: string, agentId: string): void {
    this.#facts.run(this.#facts.query.deleteFrom("agents").where("project_id", "=", projectId).where("agent_id", "=", agentId));
  }
}
