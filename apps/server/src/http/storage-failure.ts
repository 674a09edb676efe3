/**
 * A write that the disk refused, as the answer a person can act on.
 *
 * A full disk (ENOSPC, or a quota: EDQUOT) and a read-only file system (EROFS) are not bugs of
 * the server: they must never become a bare 500 `internal`. This turns such an error (a Node
 * file-system error, or one of the trace writer's, which carry the errno `code` and the file
 * `path`) into a 507 `no_space` or a 503 `read_only` whose message names the file and says
 * what to do. The error may be wrapped (`cause`), as core passes some on.
 */
import { ApiError } from "./api-error.js";

const NO_SPACE = new Set(["ENOSPC", "EDQUOT"]);

/** The storage error inside `error`, with its code and path, or undefined. */
function storageErrorOf(error: unknown): { code: string; path: string | undefined; message: string } | undefined {
  for (let e: unknown = error, depth = 0; typeof e === "object" && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (NO_SPACE.has(code) || code === "EROFS")) {
      const path = (e as { path?: unknown }).path;
      return { code, path: typeof path === "string" ? path : undefined, message: e instanceof Error ? e.message : String(e) };
    }
  }
  return undefined;
}

/** The ApiError for a full disk or a read-only file system; undefined for any other error. */
export function storageFailure(error: unknown, file?: string): ApiError | undefined {
  const found = storageErrorOf(error);
  if (found === undefined) return undefined;
  const path = found.path ?? file ?? "a file of the data root";
  if (NO_SPACE.has(found.code)) {
    const message = /no space left/i.test(found.message) && found.message.includes(path) ? found.message : `no space left on the device holding ${path}; free some space there and try again`;
    return new ApiError(507, "no_space", message);
  }
  const message = /read-only/i.test(found.message) && found.message.includes(path) ? found.message : `${path} is on a read-only file system; the server cannot write there (remount it read-write or choose another data root)`;
  return new ApiError(503, "read_only", message);
}
