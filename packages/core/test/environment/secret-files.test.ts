// Every builtin file tool refuses the secret files: `.project_config.toml` (model
// credentials), `.vault.toml` (the vault) and databases with their journals (`*.db`,
// `*.db-wal`, `*.db-shm`), by the name given, by the name a symlink leads to, and for a file
// that does not exist yet. The model gets a clear failed output naming the file; nothing is
// read (the contents never appear), nothing is written (the bytes on disk stay the same, no
// new file appears), and describe_image never hands such a file to its describer.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, sandbox, type Sandbox } from "./helpers.js";

const CONTENT = "SECRET-CONTENT-4b1f9e\n";
const SECRET_FILES = [".project_config.toml", ".vault.toml", ".db", "app.db", "app.db-wal", "app.db-shm", "data/USERS.DB", "nested/dir/facts.db"];

let boxes: Sandbox[] = [];
afterEach(async () => {
  for (const b of boxes.splice(0)) await b.cleanup();
});

function withSecrets(box: Sandbox): void {
  for (const file of SECRET_FILES) {
    mkdirSync(dirname(join(box.workspace, file)), { recursive: true });
    writeFileSync(join(box.workspace, file), CONTENT);
  }
  symlinkSync(join(box.workspace, "app.db"), join(box.workspace, "innocent.txt"));
  symlinkSync(join(box.workspace, ".project_config.toml"), join(box.workspace, "notes.md"));
}

/** Each file tool's call on `path`. */
function toolCalls(path: string): [string, Record<string, unknown>][] {
  return [
    ["read_file", { file_path: path }],
    ["edit_file", { file_path: path, old_string: "SECRET", new_string: "PUBLIC" }],
    ["write_file", { file_path: path, content: "overwritten\n" }],
    ["read_image", { source: path }],
    ["describe_image", { source: path }],
  ];
}

describe("the secret files, through every builtin file tool", () => {
  it("are refused by name, behind a symlink and as an absolute path; nothing is read or written", async () => {
    const described: string[] = [];
    const plain = sandbox({ describeImage: async ({ image }) => (described.push(image), "an image") });
    const vision = sandbox({ vision: true });
    boxes.push(plain, vision);
    withSecrets(plain);
    withSecrets(vision);
    const paths = [...SECRET_FILES, "innocent.txt", "notes.md"];
    for (const box of [plain, vision]) {
      const offered = new Set(box.env.listTools().map((t) => t.name));
      for (const path of [...paths, join(box.workspace, "app.db-wal")]) {
        for (const [tool, args] of toolCalls(path)) {
          if (!offered.has(tool)) continue;
          const r = await call(box.env, tool, args);
          expect(r.stopReason, `${tool} ${path}`).toBe("failed");
          expect(r.output, `${tool} ${path}`).toMatch(/^Refusing to access .+: it (holds secrets|is a database)/);
          expect(r.output).not.toContain("SECRET-CONTENT");
        }
      }
      for (const file of SECRET_FILES) expect(readFileSync(join(box.workspace, file), "utf8")).toBe(CONTENT);
    }
    expect(described).toEqual([]);
  });

  it("names a database as a database and a config as secrets", async () => {
    const box = sandbox();
    boxes.push(box);
    withSecrets(box);
    expect((await call(box.env, "read_file", { file_path: "app.db-shm" })).output).toBe(
      "Refusing to access app.db-shm: it is a database (user accounts, logins, session records), and the file tools never read or write it. Leave it alone and work with other files.",
    );
    expect((await call(box.env, "read_file", { file_path: "notes.md" })).output).toContain("it holds secrets (model credentials or vault values)");
  });

  it("cannot be created: write_file refuses a new database or vault and leaves no file", async () => {
    const box = sandbox();
    boxes.push(box);
    for (const path of ["fresh.db", "sub/fresh.db-wal", "sub/.vault.toml", ".project_config.toml"]) {
      const r = await call(box.env, "write_file", { file_path: path, content: "x" });
      expect(r.stopReason).toBe("failed");
      expect(r.output).toContain("Refusing to access");
      expect(existsSync(join(box.workspace, path))).toBe(false);
    }
  });

  it("leaves look-alike names alone: db.txt, app.dbx, schema.db.sql, x.db-journal.txt", async () => {
    const box = sandbox();
    boxes.push(box);
    for (const path of ["db.txt", "app.dbx", "schema.db.sql", "x.db-journal.txt"]) {
      const w = await call(box.env, "write_file", { file_path: path, content: "fine\n" });
      expect(w.stopReason, path).toBe("completed");
      const r = await call(box.env, "read_file", { file_path: path });
      expect(r.output).toBe("     1\tfine\n");
    }
  });
});
