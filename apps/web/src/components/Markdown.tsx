/**
 * Markdown rendering for assistant text: GitHub-flavoured (tables, task lists,
 * strikethrough, autolinks) through react-markdown + remark-gfm, with fenced code handed to
 * CodeBlock (lazy shiki). Raw HTML in the text is not rendered (react-markdown's default),
 * and links open in a new tab without giving it our window.
 */
import { memo, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./CodeBlock";

interface HastLike {
  type: string;
  value?: unknown;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: unknown[];
}

function isHast(v: unknown): v is HastLike {
  return typeof v === "object" && v !== null && "type" in v && typeof v.type === "string";
}

function textOf(node: unknown): string {
  if (!isHast(node)) return "";
  if (node.type === "text" && typeof node.value === "string") return node.value;
  return (node.children ?? []).map(textOf).join("");
}

function languageOfClass(className: unknown): string | undefined {
  const list = Array.isArray(className) ? className : typeof className === "string" ? className.split(" ") : [];
  for (const c of list) if (typeof c === "string" && c.startsWith("language-")) return c.slice("language-".length);
  return undefined;
}

const components: Components = {
  pre({ node, children }): ReactNode {
    let code: HastLike | undefined;
    for (const c of node?.children ?? []) if (isHast(c) && c.type === "element" && c.tagName === "code") code = c;
    if (code === undefined) return <pre>{children}</pre>;
    const text = textOf(code).replace(/\n$/, "");
    return <CodeBlock code={text} lang={languageOfClass(code.properties?.className)} />;
  },
  a({ href, children }) {
    return (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    );
  },
};

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
