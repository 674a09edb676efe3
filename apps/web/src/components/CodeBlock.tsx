/**
 * A fenced code block: plain text at once, highlighted HTML once shiki and the language's
 * grammar have loaded (lib/highlight.ts), with the language shown and a copy button. While
 * a message streams the code changes often, so highlighting waits for a short pause; code
 * highlighted before is shown highlighted at once (the highlighter keeps recent results).
 */
import { createEffect, createSignal, onCleanup, Show } from "solid-js";
import { highlight, highlightedBefore, languageOf } from "../lib/highlight";

export function CodeBlock(props: { code: string; lang: string | undefined }) {
  const [html, setHtml] = createSignal<string | undefined>(undefined);
  const [copied, setCopied] = createSignal(false);
  createEffect(() => {
    const code = props.code;
    const known = languageOf(props.lang);
    if (known === undefined) {
      setHtml(undefined);
      return;
    }
    const ready = highlightedBefore(code, known);
    setHtml(ready);
    if (ready !== undefined) return;
    let live = true;
    const timer = setTimeout(() => {
      void highlight(code, known).then((h) => {
        if (live) setHtml(h);
      });
    }, 120);
    onCleanup(() => {
      live = false;
      clearTimeout(timer);
    });
  });
  const copy = () => {
    void navigator.clipboard?.writeText(props.code).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  };
  return (
    <div class="group relative my-2 overflow-hidden rounded-md border border-slate-200 dark:border-slate-800">
      <div class="flex items-center justify-between bg-slate-100 px-3 py-1 text-xs text-slate-600 dark:bg-slate-900 dark:text-slate-400">
        <span>{props.lang ?? "text"}</span>
        <button type="button" onClick={copy} class="rounded px-1.5 py-0.5 hover:bg-slate-200 dark:hover:bg-slate-800" aria-label="Copy code">
          {copied() ? "Copied" : "Copy"}
        </button>
      </div>
      <Show
        when={html()}
        fallback={
          <pre class="overflow-x-auto bg-slate-50 p-3 font-mono text-sm dark:bg-slate-950">
            <code>{props.code}</code>
          </pre>
        }
      >
        {(h) => <div class="overflow-x-auto bg-slate-50 p-3 font-mono text-sm dark:bg-slate-950 [&_pre]:m-0 [&_pre]:p-0" innerHTML={h()} />}
      </Show>
    </div>
  );
}
