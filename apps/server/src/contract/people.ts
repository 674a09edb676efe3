/**
 * Users, projects, members and agents as the API answers them (auth, me, admin, projects,
 * agents routes). Schemas only: see common.ts for why this folder imports no server code.
 */
import { Schema } from "effect";

export const UserView = Schema.Struct({ userId: Schema.String, isAdmin: Schema.Boolean, passwordIsInitial: Schema.Boolean });
export const LoginAnswer = Schema.Struct({ user: UserView });
export const SandboxAvailability = Schema.Struct({ available: Schema.Boolean, enabled: Schema.Boolean });
export const MeAnswer = Schema.Struct({
  user: UserView,
  uploadLimits: Schema.Struct({ attachmentMaxMb: Schema.Number, attachmentTotalMb: Schema.Number }),
  sandbox: SandboxAvailability,
});
export const Prefs = Schema.Record({ key: Schema.String, value: Schema.Unknown });

export const AdminUserView = Schema.Struct({ userId: Schema.String, isAdmin: Schema.Boolean, passwordIsInitial: Schema.Boolean, createdAt: Schema.Number });
export const AdminUserList = Schema.Struct({ users: Schema.Array(AdminUserView) });
export const AdminUserCreated = Schema.Struct({ user: AdminUserView, projectId: Schema.String });

export const ProjectRole = Schema.Literal("owner", "member", "admin");
export const ProjectView = Schema.Struct({ projectId: Schema.String, name: Schema.NullOr(Schema.String), ownerUserId: Schema.String, role: ProjectRole, createdAt: Schema.Number });
export const ProjectList = Schema.Struct({ projects: Schema.Array(ProjectView) });
export const MemberView = Schema.Struct({ userId: Schema.String, role: Schema.Literal("owner", "member"), createdAt: Schema.Number });
export const MemberList = Schema.Struct({ members: Schema.Array(MemberView) });

export const AgentView = Schema.Struct({ agentId: Schema.String, name: Schema.NullOr(Schema.String), description: Schema.NullOr(Schema.String), createdAt: Schema.NullOr(Schema.Number) });
export const AgentList = Schema.Struct({ agents: Schema.Array(AgentView) });

/** The workspace picker: one folder of the server, its sub-folders, and the roots a workspace may live under. */
export const DirListing = Schema.Struct({ path: Schema.String, parent: Schema.NullOr(Schema.String), dirs: Schema.Array(Schema.String), roots: Schema.Array(Schema.String) });

/** The decoded types, for code that reads these answers (the web app imports them as types). */
export type UserView = typeof UserView.Type;
export type LoginAnswer = typeof LoginAnswer.Type;
export type SandboxAvailability = typeof SandboxAvailability.Type;
export type MeAnswer = typeof MeAnswer.Type;
export type Prefs = typeof Prefs.Type;
export type AdminUserView = typeof AdminUserView.Type;
export type AdminUserList = typeof AdminUserList.Type;
export type AdminUserCreated = typeof AdminUserCreated.Type;
export type ProjectRole = typeof ProjectRole.Type;
export type ProjectView = typeof ProjectView.Type;
export type ProjectList = typeof ProjectList.Type;
export type MemberView = typeof MemberView.Type;
export type MemberList = typeof MemberList.Type;
export type AgentView = typeof AgentView.Type;
export type AgentList = typeof AgentList.Type;
export type DirListing = typeof DirListing.Type;
