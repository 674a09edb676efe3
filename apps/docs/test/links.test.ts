// The link check: every internal link of every page (Markdown links and the home pages'
// `link:` entries) reaches a page of the site, no link leaves the site for a file of the
// repository (a relative path out of site/, or a repository file on a code host), every page
// is in both languages and in the sidebar, and the README's links into the site reach pages.
import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { PAGE_PATHS } from "../site/.vitepress/config.js";
import { REPO, SITE, sitePages } from "./site-files.js";

interface Link {
  page: string;
  target: string;
}

function linksOf(page: { path: string; text: string }): Link[] {
  const withoutCode = page.text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "").replace(/`[^`\n]*`/g, "");
  const links: Link[] = [];
  for (const m of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ page: page.path, target: m[1] ?? "" });
  for (const m of withoutCode.matchAll(/^\s*link:\s*(\S+)\s*$/gm)) links.push({ page: page.path, target: m[1] ?? "" });
  return links;
}

/** The page file a site-internal link reaches, or undefined when it reaches none. */
function pageFileOf(link: Link): string | undefined {
  const path = link.target.split("#")[0] ?? "";
  if (path === "") return link.page;
  const fromRoot = path.startsWith("/") ? path.slice(1) : posix.join(posix.dirname(link.page), path);
  if (fromRoot.startsWith("..")) return undefined;
  const candidates = fromRoot === "" || fromRoot.endsWith("/") ? [`${fromRoot}index.md`] : [fromRoot, `${fromRoot.replace(/\.html$/, "")}.md`, `${fromRoot}.md`, `${fromRoot}/index.md`];
  return candidates.find((c) => c.endsWith(".md") && existsSync(join(SITE, c)));
}

const FILE_ON_A_CODE_HOST = /^https?:\/\/[^/]+\/[^/]+\/[^/]+\/(blob|tree|raw)\//;

describe("the site's links", () => {
  const pages = sitePages();
  const links = pages.flatMap(linksOf);

  it("are there to check", () => expect(links.length).toBeGreaterThan(40));

  it("reach a page of the site when internal", () => {
    const internal = links.filter((l) => !/^[a-z]+:/i.test(l.target));
    const dead = internal.filter((l) => pageFileOf(l) === undefined).map((l) => `${l.page} → ${l.target}`);
    expect(dead, "dead internal links (or links out of site/ to a file path)").toEqual([]);
  });

  it("never point out of the site to a file of the repository", () => {
    const out = links.filter((l) => FILE_ON_A_CODE_HOST.test(l.target) || l.target.startsWith("file:")).map((l) => `${l.page} → ${l.target}`);
    expect(out).toEqual([]);
  });

  it("cover every page in both languages from the sidebar", () => {
    for (const path of PAGE_PATHS) {
      expect(existsSync(join(SITE, `${path}.md`)), `${path}.md`).toBe(true);
      expect(existsSync(join(SITE, "zh", `${path}.md`)), `zh/${path}.md`).toBe(true);
    }
    const inSidebar = new Set(PAGE_PATHS.flatMap((p) => [`${p}.md`, `zh/${p}.md`]));
    const orphans = pages.map((p) => p.path).filter((p) => !inSidebar.has(p) && p !== "index.md" && p !== "zh/index.md");
    expect(orphans, "pages that no sidebar lists").toEqual([]);
  });

  it("from the README reach pages of the site", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const intoSite = [...readme.matchAll(/\]\((apps\/docs\/site\/[^)#\s]+)/g)].map((m) => m[1] ?? "");
    expect(intoSite.length, "the README links to the documentation pages").toBeGreaterThan(3);
    for (const target of intoSite) expect(existsSync(join(REPO, target)), target).toBe(true);
  });
});
