/**
 * A fenced code block: plain text at once, highlighted HTML once shiki and the language's
 * grammar have loaded (lib/highlight.ts), with the language shown and a copy button. While
 * a message streams the code changes often, so highlighting waits for a short pause.
 */
import { memo, useEffect, useState } from "react";
import { highlight, languageOf } from "../lib/highlight";

export const CodeBlock = memo(function CodeBlock({ code, lang }: { code: string; lang: string | undefined }) {
  const [html, setHtml] = useState<string | undefined>(undefined);
  const [copied, setCopied] = useState(false);
  const known = languageOf(lang);
  useEffect(() => {
    if (known === undefined) return;
    let live = true;
    const timer = setTimeout(() => {
      void highlight(code, known).then((h) => {
        if (live) setHtml(h);
      });
    }, 120);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [code, known]);
  const copy = () => {
    void navigator.clipboard?.writeText(code).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  };
  return (
    <div className="group relative my-2 overflow-hidden rounded-md border border-slate-200 dark:border-slate-800">
      <div className="flex items-center justify-between bg-slate-100 px-3 py-1 text-xs text-slate-600 dark:bg-slate-900 dark:text-slate-400">
        <span>{lang ?? "text"}</span>
        <button type="button" onClick={copy} className="rounded px-1.5 py-0.5 hover:bg-slate-200 dark:hover:bg-slate-800" aria-label="Copy code">
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      {html === undefined ? (
        <pre className="overflow-x-auto bg-slate-50 p-3 font-mono text-sm dark:bg-slate-950">
          <code>{code}</code>
        </pre>
      ) : (
        <div className="overflow-x-auto bg-slate-50 p-3 font-mono text-sm dark:bg-slate-950 [&_pre]:m-0 [&_pre]:p-0" dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </div>
  );
});
