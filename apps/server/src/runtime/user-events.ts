/**
 * UserEventHub: one event channel per user for `GET /api/events` (the sidebar's feed):
 * `session_created`, `session_state`, `session_title`, `session_deleted`, …, each a named
 * `server_event` whose data carries `type`. Events about a project go to everyone who can
 * see it (the audience comes from the AccessPolicy, the one authority on who sees what).
 * Each user channel keeps a small replay ring so a reconnect within a minute or so misses
 * nothing; older gaps get `resync_required` like session streams.
 */
import { EventIds, SseChannel, type ChannelLimits } from "./sse-channel.js";

export const USER_RING: ChannelLimits = { maxEvents: 1000, maxBytes: 1024 * 1024 };

export type UserEvent = { type: string } & Record<string, unknown>;

export class UserEventHub {
  readonly #ids: EventIds;
  readonly #channels = new Map<string, SseChannel>();
  readonly #audience: (projectId: string) => string[];

  constructor(ids: EventIds, audience: (projectId: string) => string[]) {
    this.#ids = ids;
    this.#audience = audience;
  }

  channel(userId: string): SseChannel {
    let ch = this.#channels.get(userId);
    if (ch === undefined) {
      ch = new SseChannel(this.#ids, USER_RING);
      this.#channels.set(userId, ch);
    }
    return ch;
  }

  toUser(userId: string, event: UserEvent): void {
    this.channel(userId).publish(JSON.stringify(event), "server_event");
  }

  toProject(projectId: string, event: UserEvent): void {
    for (const userId of this.#audience(projectId)) this.toUser(userId, event);
  }

  closeAll(): void {
    for (const ch of this.#channels.values()) ch.closeAll();
  }
}
