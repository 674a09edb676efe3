/**
 * Base-URL helpers: join an operation path onto a protocol root, and normalise URLs so two
 * spellings of the same endpoint compare equal (credential isolation depends on that).
 */

/** `base` + `/path`, with exactly one slash between them. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** Lower-case host, no default port, no trailing slash; undefined when not a URL. */
export function normalizeUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return undefined;
  }
  const path = u.pathname.replace(/\/+$/, "");
  return `${u.protocol}//${u.host}${path}`;
}

/** The lower-case host name of a URL, or "" when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}
