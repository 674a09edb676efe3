/**
 * Who can see a project, remembered for one burst of events (a projection pass, a feed
 * catch-up). Each lookup of the AccessPolicy's audience costs three reads of the facts
 * connection (the project, its members, the admins), synchronous and on PostgreSQL a round
 * trip each; a pass that changed 300 session rows of one project asked 300 times for the same
 * answer. A memo asks once per project and burst.
 *
 * It must never hand out a stale audience: an event after a member is removed must not reach
 * them. So every change of who can see what (ProjectStore and UserStore count them:
 * `accessChanges`) empties it before the next lookup, and it lives only for its burst, so a
 * change another node made (not counted here) is read by the next pass.
 */
export type AudienceOf = (projectId: string) => string[];

export function audienceMemo(read: AudienceOf, generation: () => number): AudienceOf {
  const known = new Map<string, string[]>();
  let seen = generation();
  return (projectId) => {
    const now = generation();
    if (now !== seen) {
      known.clear();
      seen = now;
    }
    let ids = known.get(projectId);
    if (ids === undefined) {
      ids = read(projectId);
      known.set(projectId, ids);
    }
    return ids;
  };
}
