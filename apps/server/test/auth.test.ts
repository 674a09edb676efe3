// Authentication: the seeded admin and its initial password file, scrypt hashes, the
// session cookie (flags, sha256 at rest, sliding expiry, logout), the login rate limits,
// the write guard (415, 403) and 401 for anonymous API calls.
import { readFileSync, statSync, existsSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PASSWORD_ALPHABET } from "../src/auth/initial-password.js";
import { hashPassword, verifyPassword } from "../src/auth/password.js";
import { hashToken } from "../src/auth/tokens.js";
import type { ApiClient } from "./helpers/client.js";
import { startHarness, type Harness } from "./helpers/harness.js";
import { listenOnLoopback } from "./helpers/socket.js";

let h: Harness | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanups.splice(0)) await close();
  await h?.cleanup();
  h = undefined;
});

describe("the seeded admin", () => {
  it("gets an 80-bit initial password kept 0600 in the data root until it is changed", async () => {
    h = await startHarness();
    expect(PASSWORD_ALPHABET.length).toBe(32);
    expect(new Set(PASSWORD_ALPHABET).size).toBe(32);
    expect(h.adminPassword).toMatch(new RegExp(`^penguin-[${PASSWORD_ALPHABET}]{4}(-[${PASSWORD_ALPHABET}]{4}){3}$`));
    const file = join(h.root, "initial-admin-password");
    expect(readFileSync(file, "utf8").trim()).toBe(h.adminPassword);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const hash = h.server.context.stores.users.get("admin")?.passwordHash ?? "";
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);

    const admin = h.client();
    await admin.login("admin", h.adminPassword);
    expect((await admin.get("/api/me")).body.user).toEqual({ userId: "admin", isAdmin: true, passwordIsInitial: true });
    const wrong = await admin.put("/api/me/password", { oldPassword: "nope", newPassword: "a-better-password" });
    expect(wrong.status).toBe(403);
    expect(existsSync(file)).toBe(true);
    const changed = await admin.put("/api/me/password", { oldPassword: h.adminPassword, newPassword: "a-better-password" });
    expect(changed.status).toBe(204);
    expect(existsSync(file)).toBe(false);
    expect(h.server.context.stores.users.get("admin")?.passwordIsInitial).toBe(false);
    const again = h.client();
    expect((await again.post("/api/auth/login", { userId: "admin", password: h.adminPassword })).status).toBe(401);
    await again.login("admin", "a-better-password");
  });

  it("is enforced by the server: until it is changed, only /api/me, the password change and logout answer", async () => {
    h = await startHarness();
    const admin = h.client();
    await admin.login("admin", h.adminPassword);
    for (const [method, path] of [
      ["GET", "/api/projects"],
      ["GET", "/api/events"],
      ["GET", "/api/admin/users"],
      ["GET", "/api/projects/default_project/models"],
      ["POST", "/api/projects/default_project/agents/default_agent/sessions"],
    ] as const) {
      const answer = await admin.call(method, path, method === "POST" ? { workspace: h.workspace } : undefined);
      expect(answer.status, path).toBe(403);
      expect(answer.body.error.code, path).toBe("password_change_required");
    }
    expect(h.server.context.stores.facts.first(h.server.context.stores.facts.query.selectFrom("sessions").select((eb) => eb.fn.countAll<number>().as("n")))).toEqual({ n: 0 });
    expect((await admin.get("/api/me")).status).toBe(200);
    expect((await admin.get("/api/me/prefs")).status).toBe(200);
    expect((await admin.get("/api/version")).status).toBe(200);
    expect((await admin.put("/api/me/password", { oldPassword: h.adminPassword, newPassword: "a-better-password" })).status).toBe(204);
    expect((await admin.get("/api/projects")).status).toBe(200);
  });

  it("verifies scrypt hashes in constant form and rejects malformed ones", async () => {
    const stored = await hashPassword("correct horse", { N: 1024, r: 8, p: 1 });
    expect(await verifyPassword("correct horse", stored)).toBe(true);
    expect(await verifyPassword("correct horsf", stored)).toBe(false);
    expect(await verifyPassword("x", "scrypt$1024$8$1$$")).toBe(false);
    expect(await verifyPassword("x", "bcrypt$whatever")).toBe(false);
  });
});

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/, 7 days, and stored only as its sha256", async () => {
    h = await startHarness();
    const c = h.client();
    const answer = await c.login("admin", h.adminPassword);
    const cookie = answer.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^penguin_session=[A-Za-z0-9_-]{43};/);
    const flags = cookie.split(";").map((f) => f.trim());
    expect(flags).toEqual(expect.arrayContaining(["Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=604800"]));
    const token = (c.cookie ?? "").split("=")[1] ?? "";
    const facts = h.server.context.stores.facts;
    const rows = facts.all(facts.query.selectFrom("auth_sessions").select("token_hash"));
    expect(rows).toEqual([{ token_hash: hashToken(token) }]);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("slides its expiry with use and expires after 7 idle days", async () => {
    h = await startHarness();
    const c = await h.admin();
    h.clock.advance(2 * 24 * 3600 * 1000);
    const renewed = await c.get("/api/me");
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get("set-cookie")).toMatch(/Max-Age=604800/);
    h.clock.advance(6 * 24 * 3600 * 1000);
    expect((await c.get("/api/me")).status).toBe(200);
    h.clock.advance(7 * 24 * 3600 * 1000 + 1);
    expect((await c.get("/api/me")).status).toBe(401);
  });

  it("is revoked by logout, server side", async () => {
    h = await startHarness();
    const c = await h.admin();
    const stolen = c.cookie;
    expect((await c.post("/api/auth/logout")).status).toBe(204);
    expect(c.cookie).toBeUndefined();
    c.cookie = stolen;
    expect((await c.get("/api/me")).status).toBe(401);
  });
});

describe("login rate limits", () => {
  // Ported to the per-pair delays: the per-user window (10 failures locked the account for 15 min, from
  // anywhere) let anyone lock any account. Now each (address, user) pair gets 5 free attempts,
  // then waits 1 s, doubling to 15 min; other addresses are not slowed down.
  const login = (c: ApiClient, userId: string, password: string) => c.post("/api/auth/login", { userId, password });

  it("after 5 failures an address waits 1 s for that user, then 2 s, doubling up to 15 min; Retry-After says how long", async () => {
    h = await startHarness();
    const c = h.client();
    for (let i = 0; i < 5; i++) expect((await login(c, "admin", "wrong")).status).toBe(401);
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      const limited = await login(c, "admin", h.adminPassword);
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe("rate_limited");
      const wait = Number(limited.headers.get("retry-after"));
      waits.push(wait);
      h.clock.advance(wait * 1000 - 1);
      expect((await login(c, "admin", "wrong")).status, "one millisecond early").toBe(429);
      h.clock.advance(1);
      expect((await login(c, "admin", "wrong")).status).toBe(401);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900, 900]);
    h.clock.advance(900_000);
    expect((await login(c, "admin", h.adminPassword)).status).toBe(200);
    // The success reset the pair: 5 free attempts again.
    for (let i = 0; i < 5; i++) expect((await login(c, "admin", "wrong")).status).toBe(401);
    expect((await login(c, "admin", "wrong")).status).toBe(429);
  });

  it("slows down only the address that fails: another address logs in as that user at once", async () => {
    h = await startHarness();
    const [attacker, owner] = await Promise.all([clientFrom(h, "127.0.0.2"), clientFrom(h, "127.0.0.3")]);
    cleanups.push(attacker.close, owner.close);
    for (let i = 0; i < 5; i++) expect((await attacker.login("admin", "wrong")).status).toBe(401);
    for (let i = 0; i < 20; i++) {
      const limited = await attacker.login("admin", "wrong");
      expect(limited.status).toBe(429);
      h.clock.advance(Number(limited.retryAfter) * 1000);
      expect((await attacker.login("admin", "wrong")).status).toBe(401);
    }
    expect((await attacker.login("admin", h.adminPassword)).status).toBe(429);
    expect((await owner.login("admin", h.adminPassword)).status).toBe(200);
    expect((await attacker.login("admin", h.adminPassword)).status).toBe(429);
  });

  it("counts per client address and user id, without slowing down the other users behind that address", async () => {
    h = await startHarness();
    const c = h.client();
    for (const userId of ["alice", "bob", "carol", "dave"]) for (let i = 0; i < 5; i++) expect((await login(c, userId, "x")).status).toBe(401);
    const limited = await login(c, "alice", "x");
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    expect(limited.body.error.message).toContain("alice");
    expect((await login(c, "admin", h.adminPassword)).status).toBe(200);
  });

  it("does not let 20 failures from one address lock out the admin with the right password", async () => {
    h = await startHarness();
    const c = h.client();
    for (let i = 0; i < 20; i++) expect((await login(c, `user${i}`, "wrong")).status).toBe(401);
    expect((await login(c, "admin", h.adminPassword)).status).toBe(200);
  });

  it("cannot be raced: of 40 concurrent wrong logins for one user from one address, only the 5 free ones are checked", async () => {
    h = await startHarness();
    const answers = await Promise.all(Array.from({ length: 40 }, () => login(h!.client(), "admin", "wrong-guess")));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    expect((await login(h.client(), "admin", h.adminPassword)).status).toBe(429);
  });

  it("rate limits the old-password check of a password change", async () => {
    h = await startHarness();
    const c = h.client();
    await c.login("admin", h.adminPassword);
    for (let i = 0; i < 5; i++) expect((await c.put("/api/me/password", { oldPassword: `guess-${i}`, newPassword: "a-better-password" })).status).toBe(403);
    const limited = await c.put("/api/me/password", { oldPassword: h.adminPassword, newPassword: "a-better-password" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBe(1);
    h.clock.advance(1000);
    expect((await c.put("/api/me/password", { oldPassword: h.adminPassword, newPassword: "a-better-password" })).status).toBe(204);
  });
});

/** Logins sent from a chosen loopback address (127.0.0.0/8 is all local), to the harness's app on a second listener. */
async function clientFrom(harness: Harness, localAddress: string): Promise<{ login(userId: string, password: string): Promise<{ status: number; retryAfter: string | undefined }>; close: () => Promise<void> }> {
  const listening = await listenOnLoopback(harness.server.app);
  return {
    close: () => listening.close(),
    login: (userId, password) =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify({ userId, password });
        const req = httpRequest(
          { host: "127.0.0.1", port: listening.port, localAddress, method: "POST", path: "/api/auth/login", headers: { host: "localhost", "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } },
          (res) => {
            res.resume();
            const retry = res.headers["retry-after"];
            res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retry) ? retry[0] : retry }));
          },
        );
        req.on("error", reject);
        req.end(body);
      }),
  };
}

describe("the write guard", () => {
  it("refuses a write without content-type application/json (415)", async () => {
    h = await startHarness();
    const c = await h.admin();
    const form = await c.raw("POST", "/api/projects", { body: "projectId=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(form.status).toBe(415);
    const refused: any = await form.json();
    expect(refused.error.code).toBe("unsupported_media_type");
    const plain = await c.raw("DELETE", "/api/sessions/session-2026-01-01-00-00-00-00000000", { headers: { "content-type": "text/plain" } });
    expect(plain.status).toBe(415);
    expect(h.server.context.stores.projects.get("x")).toBeUndefined();
  });

  it("refuses a write whose Origin is another host (403)", async () => {
    h = await startHarness();
    const c = await h.admin();
    const cross = await c.call("POST", "/api/projects", { projectId: "evil_project" }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect(cross.body.error.code).toBe("bad_origin");
    const same = await c.call("POST", "/api/projects", { projectId: "good_project" }, { origin: "http://localhost" });
    expect(same.status).toBe(201);
    expect(h.server.context.stores.projects.get("evil_project")).toBeUndefined();
  });

  it("names the bad field of an invalid body (400)", async () => {
    h = await startHarness();
    const c = h.client();
    const bad = await c.post("/api/auth/login", { userId: 42, password: "x" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", field: "userId" });
    expect(bad.body.error.message).toContain('body field "userId"');
  });

  it("answers 401 to anonymous API calls, known route or not, and 404 to signed-in unknown routes", async () => {
    h = await startHarness();
    const anon = h.client();
    expect((await anon.get("/api/projects")).status).toBe(401);
    expect((await anon.get("/api/no-such-thing")).status).toBe(401);
    expect((await anon.get("/api/version")).status).toBe(200);
    const admin = await h.admin();
    expect((await admin.get("/api/no-such-thing")).status).toBe(404);
  });
});
