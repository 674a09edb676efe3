// A small cookie-keeping API client for tests. The same class drives the harness app over
// 127.0.0.1 (any Host kept) and a real server over fetch, so a scenario can run either way.
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface ApiAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export class ApiClient {
  readonly #fetch: FetchLike;
  readonly #base: string;
  cookie: string | undefined;

  constructor(fetchLike: FetchLike, base = "http://localhost") {
    this.#fetch = fetchLike;
    this.#base = base;
  }

  get base(): string {
    return this.#base;
  }

  async raw(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookie !== undefined) headers.cookie = this.cookie;
    const write = method !== "GET" && method !== "HEAD";
    if (write && headers["content-type"] === undefined) headers["content-type"] = "application/json";
    const body = init.body === undefined ? (write ? undefined : undefined) : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    const res = await this.#fetch(`${this.#base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const set = res.headers.get("set-cookie");
    if (set !== null) {
      const pair = set.split(";")[0] ?? "";
      this.cookie = pair.endsWith("=") ? undefined : pair;
    }
    return res;
  }

  async call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer<T>> {
    const res = await this.raw(method, path, { body, ...(headers === undefined ? {} : { headers }) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string): Promise<ApiAnswer<T>> {
    return this.call<T>("GET", path);
  }
  post<T = any>(path: string, body?: unknown): Promise<ApiAnswer<T>> {
    return this.call<T>("POST", path, body ?? {});
  }
  put<T = any>(path: string, body?: unknown): Promise<ApiAnswer<T>> {
    return this.call<T>("PUT", path, body ?? {});
  }
  patch<T = any>(path: string, body?: unknown): Promise<ApiAnswer<T>> {
    return this.call<T>("PATCH", path, body ?? {});
  }
  del<T = any>(path: string): Promise<ApiAnswer<T>> {
    return this.call<T>("DELETE", path);
  }

  /**
   * Signs in ready to work: the server refuses everything but /api/me to a user who still
   * has the initial password, so that password is "changed" (to itself, which keeps the
   * tests' known password valid) when the answer says it is initial.
   */
  async signIn(userId: string, password: string): Promise<ApiAnswer> {
    const answer = await this.login(userId, password);
    if (answer.body?.user?.passwordIsInitial === true) {
      const changed = await this.put("/api/me/password", { oldPassword: password, newPassword: password });
      if (changed.status !== 204) throw new Error(`changing the initial password of ${userId} failed: ${changed.status} ${JSON.stringify(changed.body)}`);
    }
    return answer;
  }

  async login(userId: string, password: string): Promise<ApiAnswer> {
    const answer = await this.post("/api/auth/login", { userId, password });
    if (answer.status !== 200) throw new Error(`login as ${userId} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  }
}
