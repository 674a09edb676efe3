/**
 * Markdown rendering for assistant text: GitHub-flavoured (tables, task lists,
 * strikethrough, autolinks) through micromark and its GFM extension, which turn the text
 * into HTML with any raw HTML in it escaped (micromark's default), so the result is safe to
 * inject. Links then open in a new tab without giving it our window, and each fenced block
 * becomes a CodeBlock (lazy shiki, copy button), mounted in place of micromark's <pre>.
 *
 * Streaming text re-renders as it grows; the HTML is rebuilt only when the text changed.
 */
import { createEffect, onCleanup } from "solid-js";
import { render } from "solid-js/web";
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";
import { CodeBlock } from "./CodeBlock";

const extensions = [gfm()];
const htmlExtensions = [gfmHtml()];

export function markdownToHtml(text: string): string {
  return micromark(text, { extensions, htmlExtensions });
}

function languageOfClass(className: string): string | undefined {
  for (const c of className.split(" ")) if (c.startsWith("language-")) return c.slice("language-".length);
  return undefined;
}

export function Markdown(props: { text: string }) {
  let box!: HTMLDivElement;
  createEffect(() => {
    box.innerHTML = markdownToHtml(props.text);
    for (const a of box.querySelectorAll("a")) {
      a.target = "_blank";
      a.rel = "noreferrer noopener";
    }
    const blocks: (() => void)[] = [];
    for (const code of box.querySelectorAll("pre > code")) {
      const pre = code.parentElement;
      if (pre === null) continue;
      const source = (code.textContent ?? "").replace(/\n$/, "");
      const lang = languageOfClass(code.className);
      const host = document.createElement("div");
      pre.replaceWith(host);
      blocks.push(render(() => <CodeBlock code={source} lang={lang} />, host));
    }
    onCleanup(() => {
      for (const dispose of blocks) dispose();
    });
  });
  return <div class="markdown" ref={box} />;
}
