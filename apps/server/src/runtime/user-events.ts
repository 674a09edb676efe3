/**
 * UserEventHub: one event channel per user for `GET /api/events` (the sidebar's feed and
 * `penguin sessions --watch` / `usage --watch`): `session_created`, `session_state` (a task
 * started or ended), `session_title`, `session_deleted`, …, and the read models' changes as
 * the projections commit them (`session_row`, `usage_totals`; services/projection-feed.ts),
 * each a named `server_event` whose data carries `type`. Events about a project go to
 * everyone who can see it (the audience comes from the AccessPolicy, the one authority on who
 * sees what).
 *
 * Ids are `<N>.<epoch>.<seq>`: N is the projection position when the event was sent (how many
 * trace events the sessions projection has applied, a number kept in projections.db and the
 * same for any process that reads the same traces), epoch names this server process and seq
 * counts its events. Resuming with Last-Event-ID:
 * - an id of this process still in the user's ring (1,000 events / 1 MB): exactly the events
 *   after it;
 * - any other id whose N the read-model log covers (an older process, before a restart; or a
 *   gap that left the ring): the `session_row` and `usage_totals` changes after N the user can
 *   see, read back from the log (services/read-model-log.ts) with ids `<position>.log.<i>`,
 *   then live (the other events of an older process, task states and the like, are not kept);
 * - an id whose N the projections have reached but the log does not cover (its file deleted,
 *   or trimmed past N): one `projection_snapshot` with the current rows and totals the user
 *   can see (a read model's state is what its missed changes add up to), then live;
 * - anything else (N past the projections, the old `<epoch>-<seq>` ids, garbage):
 *   `resync_required`.
 */
import { formatSse } from "../http/sse.js";
import type { ReadModelLog } from "../services/read-model-log.js";
import { EventIds, SseChannel, type ChannelLimits } from "./sse-channel.js";

export const USER_RING: ChannelLimits = { maxEvents: 1000, maxBytes: 1024 * 1024 };

export type UserEvent = { type: string } & Record<string, unknown>;

const FEED_ID = /^(\d+)\.([0-9a-z]+)\.(\d+)$/;

/** Ids `<N>.<epoch>.<seq>`, N read when the id is made. */
class FeedIds extends EventIds {
  readonly #position: () => number;

  constructor(epoch: string, position: () => number) {
    super(epoch);
    this.#position = position;
  }

  override format(seq: number): string {
    return `${this.#position()}.${this.epoch}.${seq}`;
  }

  override parse(id: string): number | undefined {
    const m = FEED_ID.exec(id);
    if (m === null || m[2] !== this.epoch) return undefined;
    const seq = Number(m[3]);
    return Number.isSafeInteger(seq) ? seq : undefined;
  }
}

/** The projection position an id names, when it is a feed id. */
export function feedPosition(id: string): number | undefined {
  const m = FEED_ID.exec(id.trim());
  if (m === null) return undefined;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** What a user can see of the read models right now (set by the projection feed). */
export type ReadModelSnapshot = (userId: string) => UserEvent;

export class UserEventHub {
  readonly #ids: FeedIds;
  readonly #channels = new Map<string, SseChannel>();
  readonly #audience: (projectId: string) => string[];
  readonly #audienceMemo: () => (projectId: string) => string[];
  #position = 0;
  #snapshot: ReadModelSnapshot | undefined;
  #log: ReadModelLog | undefined;

  /** `audienceMemo`: the audience remembered for one burst (auth/audience-memo.ts); default: asked each time. */
  constructor(ids: EventIds, audience: (projectId: string) => string[], audienceMemo: () => (projectId: string) => string[] = () => audience) {
    this.#ids = new FeedIds(ids.epoch, () => this.#position);
    this.#audience = audience;
    this.#audienceMemo = audienceMemo;
  }

  get epoch(): string {
    return this.#ids.epoch;
  }

  /** The projection position the feed has announced (see the module comment). */
  get position(): number {
    return this.#position;
  }

  /**
   * The id of now: the feed's position and the newest event's seq. A client holding it gets, on
   * a reconnect, what was published after it (from the ring in this process, from the
   * read-model log after a restart).
   */
  currentId(): string {
    return this.#ids.format(this.#ids.current);
  }

  /** The projections caught up to `position` (never goes back: a rebuilt database climbs back to it). */
  advance(position: number): void {
    this.#position = Math.max(this.#position, position);
  }

  /** How a reconnecting client that the ring cannot serve is brought up to date. */
  setSnapshot(snapshot: ReadModelSnapshot, log?: ReadModelLog): void {
    this.#snapshot = snapshot;
    this.#log = log;
  }

  channel(userId: string): SseChannel {
    let ch = this.#channels.get(userId);
    if (ch === undefined) {
      ch = new SseChannel(this.#ids, USER_RING, (lastEventId) => this.#catchUp(userId, lastEventId));
      this.#channels.set(userId, ch);
    }
    return ch;
  }

  toUser(userId: string, event: UserEvent): void {
    this.channel(userId).publish(JSON.stringify(event), "server_event");
  }

  /** To everyone who can see the project; `audienceOf`: a burst's memo (`audienceMemo()`), else asked now. */
  toProject(projectId: string, event: UserEvent, audienceOf: (projectId: string) => string[] = this.#audience): void {
    for (const userId of audienceOf(projectId)) this.toUser(userId, event);
  }

  /** An audience lookup for one burst of events (the same answers until access changes). */
  audienceMemo(): (projectId: string) => string[] {
    return this.#audienceMemo();
  }

  closeAll(): void {
    for (const ch of this.#channels.values()) ch.closeAll();
  }

  #catchUp(userId: string, lastEventId: string): string | undefined {
    const n = feedPosition(lastEventId);
    if (n === undefined || n > this.#position || this.#snapshot === undefined) return undefined;
    if (this.#log?.covers(n) === true) {
      const audienceOf = this.#audienceMemo();
      const visible = this.#log.after(n).filter((c) => audienceOf(c.projectId).includes(userId));
      return visible.map((c, i) => formatSse({ event: "server_event", id: `${c.position}.log.${i}`, data: JSON.stringify(c.event) })).join("");
    }
    const channel = this.#channels.get(userId);
    // The snapshot stands for everything up to now: its id is the newest of the channel, so a
    // later reconnect from it replays only what comes after.
    const id = channel?.lastId ?? this.#ids.format(this.#ids.current);
    return formatSse({ event: "server_event", id, data: JSON.stringify({ ...this.#snapshot(userId), lastEventId }) });
  }
}
