/**
 * What was sent to the agent, for the stream reducer: user texts (harness marker blocks
 * become their own notice rows, `[use_skills]` becomes skill chips, attachments become
 * chips, steering notes and scheduled prompts are labelled), images joining the prompt they
 * came with, and goal rounds.
 *
 * Goal mode: each round's harness `[goal]` block becomes a goal-round row and `goalRound`
 * is the newest round of a goal still running. Round 1 opens the goal's task, so a reload
 * (where the trace holds the block before the prompt) closes the previous task first; the
 * prompt is then drawn before its round-1 banner, as the live stream has it. The objective
 * restated under later blocks is not drawn: the live stream never carries it, and a reload
 * must look the same.
 *
 * `openInput(ts)` is the reducer's: it starts a new task when the input follows output.
 */
import { findAttachments, findMarkers, startsWithMarker, type MarkerTag } from "@penguin/omnimessage";
import { goalBlockOf } from "../goal";
import type { GoalRoundItem, UserItem } from "../view-model";
import type { RowList } from "./rows";

/** Marker blocks drawn as their own collapsed notice rows, with their titles. */
const NOTICE_TITLES: Partial<Record<MarkerTag, string>> = {
  context_summary: "Context summary",
  summary: "Summary",
  turn_aborted: "Previous turn was stopped",
  turn_retried: "Request was retried",
  background_task_done: "Background task finished",
  developer_instructions: "Developer instructions",
  handoff_from: "Handed off",
  model_switch_from: "Model switched",
};

export class InputReducer {
  readonly #rows: RowList;
  readonly #openInput: (ts: number) => void;
  /** The index of the user row still collecting inputs (images after a text). */
  #inputRow: number | undefined;
  /** The newest goal-round row, while it is still the last row (no output since). */
  #goalHead: number | undefined;
  #goalRound: GoalRoundItem | undefined;

  constructor(rows: RowList, openInput: (ts: number) => void) {
    this.#rows = rows;
    this.#openInput = openInput;
  }

  /** The newest round of a goal that has not finished (undefined when none runs). */
  get goalRound(): GoalRoundItem | undefined {
    return this.#goalRound;
  }

  /** The agent produced something: the prompt row and the goal banner are complete. */
  output(): void {
    this.#inputRow = undefined;
    this.#goalHead = undefined;
  }

  /** The goal ended (goal_finished), or its task did. */
  goalEnded(): void {
    this.#goalRound = undefined;
  }

  /** The task closed: the next input starts a new prompt row. */
  taskEnded(): void {
    this.#inputRow = undefined;
  }

  text(text: string, sender: UserItem["sender"], ts: number, timestamp: string): void {
    const rows = this.#rows;
    const steering = startsWithMarker(text, "user_steering");
    const scheduled = startsWithMarker(text, "scheduled_task");
    const notices: { tag: MarkerTag; title: string; body: string }[] = [];
    const goals: string[] = [];
    const skills: string[] = [];
    let rest = "";
    let at = 0;
    // Harness blocks become their own rows; skills become chips; the rest is what was written.
    for (const b of findMarkers(text)) {
      rest += text.slice(at, b.start);
      at = b.end;
      const title = NOTICE_TITLES[b.tag];
      if (b.tag === "goal") goals.push(b.body);
      else if (title !== undefined) notices.push({ tag: b.tag, title, body: b.body });
      else if (b.tag === "use_skills") skills.push(...b.body.split(/[\n,]/).map((s) => s.trim()).filter((s) => s !== ""));
      else rest += b.body;
    }
    rest += text.slice(at);
    // A later round's restated objective, right under its [goal] block: never streamed, so never drawn.
    if (sender === "harness" && notices.length === 0 && goals.length === 0 && this.#goalHeadOpen()) return;
    const attachments = findAttachments(rest);
    rest = rest.replace(/\[attached (image|file): [^\]\n]+\]\n?/g, "").trim();
    const isHuman = sender === undefined || sender === "user" || sender === "parent_agent" || sender === "server";
    const hasPrompt = rest !== "" || attachments.length > 0 || skills.length > 0;
    const rounds = goals.map((body) => ({ body, block: goalBlockOf(body) }));
    const firstRound = rounds.some((r) => r.block.round === 1);
    if ((isHuman && hasPrompt && !steering) || firstRound) this.#openInput(ts);
    for (const n of notices) rows.push({ kind: "notice", id: rows.newId(), tag: n.tag, title: n.title, body: n.body });
    for (const { body, block } of rounds) {
      const item: GoalRoundItem = { kind: "goal_round", id: rows.newId(), round: block.round, used: block.used, budget: block.budget, goalFile: block.goalFile, body };
      this.#goalHead = rows.push(item);
      this.#goalRound = item;
    }
    if (!hasPrompt) return;
    const item: UserItem = {
      kind: "user",
      id: rows.newId(),
      text: rest,
      images: [],
      attachments,
      skills,
      variant: steering ? "steer" : scheduled ? "scheduled" : "prompt",
      sender,
      timestamp,
    };
    const head = this.#goalHead;
    const banner = head === undefined ? undefined : rows.at(head);
    if (isHuman && !steering && head !== undefined && this.#goalHeadOpen() && banner !== undefined) {
      // The trace has the round-1 block before the prompt; draw the prompt first, as live.
      rows.replace(head, item);
      this.#goalHead = rows.push(banner);
      this.#inputRow = head;
      return;
    }
    const idx = rows.push(item);
    this.#inputRow = steering ? undefined : idx;
  }

  image(url: string, ts: number, timestamp: string): void {
    const rows = this.#rows;
    const idx = this.#inputRow;
    const row = idx === undefined ? undefined : rows.at(idx);
    if (idx !== undefined && row?.kind === "user") {
      rows.replace(idx, { ...row, images: [...row.images, url] });
      return;
    }
    this.#openInput(ts);
    this.#inputRow = rows.push({ kind: "user", id: rows.newId(), text: "", images: [url], attachments: [], skills: [], variant: "prompt", sender: undefined, timestamp });
  }

  #goalHeadOpen(): boolean {
    return this.#goalHead !== undefined && this.#goalHead === this.#rows.length - 1;
  }
}
