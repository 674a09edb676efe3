/**
 * Rewinding a session's files from the web (issue 29), in Chromium against the real server
 * and a testkit model: a session writes a file and then edits it (REWINDTEST in the harness);
 * on the Traces page the scrubber goes to the edit's checkpoint, where the files panel names
 * the file and shows the edit's diff; "Restore files to here" at the edit's tool call (asked
 * first) puts the file on disk back as it was before the edit, and "Undo this restore" brings
 * the edit back; "Fork from here" at the write's checkpoint opens a fork whose workspace (named
 * in its chat header) is a new folder holding the file as it was then.
 *
 * Skips (with the reason) when Chromium is not installed, as the other suites do.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, REWIND_FILE, signInAndRunTheScriptedTask, startHarness, type Harness } from "./harness";

const haveChromium = existsSync(CHROMIUM);
const BEFORE_EDIT = "first version\nkeep this line\n";
const AFTER_EDIT = "second version\nkeep this line\n";

async function workspaceOf(page: Page, sessionId: string): Promise<string> {
  const read = await page.evaluate(async (id) => (await fetch(`/api/sessions/${encodeURIComponent(id)}`)).json(), sessionId);
  return String((read as { workspace?: unknown }).workspace ?? "");
}

describe.skipIf(!haveChromium)("rewinding a session's files in the web dashboard", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== "fail" || h === undefined) return;
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60);
    await h.shot(`failed-rewind-files-${name}`).catch(() => undefined);
    if (h.pageErrors.length > 0) console.warn(`[web e2e] page errors so far:\n${h.pageErrors.join("\n")}`);
  });

  it("shows the edit's diff, restores the file to before it (undoably) and forks with the earlier files", async () => {
    await signInAndRunTheScriptedTask(h, { newPassword: "rewind-files-horse-battery", apiKey: "sk-testkit-key-0029" });
    const { page } = h;

    // A second session: write the file, then edit it.
    await page.getByRole("link", { name: "New chat" }).click();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    await page.getByLabel("Model", { exact: true }).selectOption({ label: "fake-model (testkit)" });
    await page.getByLabel("Approval mode").selectOption("allow-all");
    const box = page.getByRole("combobox", { name: "Message" });
    await box.fill("REWINDTEST write the notes, then edit them");
    await box.press("Enter");
    await page.waitForURL(/\/chat\/session-/);
    await page.getByRole("log", { name: "Conversation" }).getByText("REWIND DONE").waitFor({ timeout: 30_000 });
    const sessionId = decodeURIComponent(page.url().split("/chat/")[1] ?? "");
    const workspace = await workspaceOf(page, sessionId);
    expect(workspace).not.toBe("");
    const onDisk = () => readFileSync(join(workspace, REWIND_FILE), "utf8");
    expect(onDisk()).toBe(AFTER_EDIT);

    // Traces: the scrubber over this session.
    await page.getByRole("link", { name: "Traces" }).click();
    await page.getByRole("button", { name: sessionId.replace(/^session-\d{4}-\d{2}-\d{2}-/, "") }).click();
    const scrubber = page.getByRole("group", { name: "Scrubber" });
    const cursor = page.getByLabel("Cursor", { exact: true });
    await scrubber.focus();
    await page.keyboard.press("Home");
    await expect.poll(() => cursor.textContent()).toMatch(/^Event 1 of /);
    /** Steps the cursor forward (or back) at least once, until its event's label matches `label`. */
    const stepTo = async (label: RegExp, key: "ArrowRight" | "ArrowLeft") => {
      for (let guard = 0; guard < 200; guard += 1) {
        const before = await cursor.textContent();
        await scrubber.focus();
        await page.keyboard.press(key);
        await expect.poll(() => cursor.textContent()).not.toBe(before);
        if (label.test((await cursor.textContent()) ?? "")) return;
      }
      expect(await cursor.textContent()).toMatch(label);
    };
    const files = page.getByRole("region", { name: "Files at the cursor" });
    const changedHere = files.getByLabel("Files changed at this event");
    // What the panel says for the cursor's event, once it is loaded (not the last event's, kept while loading).
    const filesHere = async () => ((await files.getAttribute("aria-busy")) === "false" ? await changedHere.textContent() : "(loading)");

    // The baseline (taken right before the first file tool runs) changes nothing; the write's checkpoint adds the file.
    await stepTo(/tool_call write_file/, "ArrowRight");
    await stepTo(/workspace_checkpoint/, "ArrowRight");
    await expect.poll(filesHere).toBe("No file changed at this event (0 in the workspace).");
    await stepTo(/workspace_checkpoint/, "ArrowRight");
    await expect.poll(filesHere).toBe(`1 file changed at this event: ${REWIND_FILE}`);
    await expect.poll(() => files.getByRole("figure", { name: `Diff of ${REWIND_FILE}` }).textContent()).toContain("+first version");
    const writeCheckpoint = await cursor.textContent();

    // The edit's checkpoint: its diff.
    await stepTo(/tool_call edit_file/, "ArrowRight");
    await expect.poll(filesHere).toMatch(/^No file changed at this event/);
    await stepTo(/workspace_checkpoint/, "ArrowRight");
    await expect.poll(filesHere).toBe(`1 file changed at this event: ${REWIND_FILE}`);
    const diff = files.getByRole("figure", { name: `Diff of ${REWIND_FILE}` });
    await expect.poll(() => diff.textContent()).toContain("-first version");
    expect(await diff.textContent()).toContain("+second version");
    expect(await diff.textContent()).not.toContain("-keep this line");
    await files.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await h.shot("traces-files-diff");

    // Restore to the edit's tool call (before it ran): asked first, then the file on disk goes back.
    await stepTo(/tool_call edit_file/, "ArrowLeft");
    await files.getByRole("button", { name: "Restore files to here" }).click();
    const dialog = page.getByRole("dialog", { name: "Restore the files?" });
    await dialog.waitFor();
    await h.shot("traces-files-restore-confirm");
    expect(onDisk()).toBe(AFTER_EDIT);
    await dialog.getByRole("button", { name: "Restore files" }).click();
    await files.getByText(/^Files restored: 1 written, 0 removed\. Record \d+ holds the files from before/).waitFor();
    expect(onDisk()).toBe(BEFORE_EDIT);
    await files.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await h.shot("traces-files-restored");

    // Undoable: the record it names holds the edit.
    await files.getByRole("button", { name: "Undo this restore" }).click();
    await expect.poll(onDisk).toBe(AFTER_EDIT);

    // Fork from the write's checkpoint: a new workspace holding the file as it was then.
    await stepTo(new RegExp(writeCheckpoint!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), "ArrowLeft");
    await page.getByRole("button", { name: "Fork from here" }).click();
    await page.waitForURL((url) => /\/chat\/session-/.test(url.pathname) && !url.pathname.endsWith(encodeURIComponent(sessionId)));
    const forkId = decodeURIComponent(page.url().split("/chat/")[1] ?? "");
    const label = page.locator('[title^="Workspace (fixed): "]');
    await label.waitFor();
    const forkWorkspace = ((await label.getAttribute("title")) ?? "").replace("Workspace (fixed): ", "");
    expect(forkWorkspace).toBe(await workspaceOf(page, forkId));
    expect(forkWorkspace).not.toBe(workspace);
    expect(readFileSync(join(forkWorkspace, REWIND_FILE), "utf8")).toBe(BEFORE_EDIT);
    expect(onDisk()).toBe(AFTER_EDIT);
    await h.shot("chat-fork-with-files");
    expect(h.testkit.violations).toEqual([]);
    expect(h.pageErrors.filter((e) => !e.startsWith("console: Failed to load resource"))).toEqual([]);
  });
});
