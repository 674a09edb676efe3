/**
 * A modal dialog: `role="dialog"` with `aria-modal`, labelled by its title; focus moves
 * into it on open, Tab stays inside, Escape closes, and focus returns to what opened it.
 */
import { createUniqueId, onCleanup, onMount, type JSX } from "solid-js";

export function Dialog(props: { title: string; onClose(): void; children: JSX.Element; wide?: boolean }) {
  const titleId = createUniqueId();
  let box: HTMLDivElement | undefined;
  onMount(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    const first = box?.querySelector<HTMLElement>("input, select, textarea, button, [tabindex]:not([tabindex='-1'])");
    first?.focus();
    onCleanup(() => previous?.focus());
  });
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.stopPropagation();
      props.onClose();
      return;
    }
    if (e.key !== "Tab" || box === undefined) return;
    const focusable = [...box.querySelectorAll<HTMLElement>("input, select, textarea, button, a[href], [tabindex]:not([tabindex='-1'])")].filter((el) => !el.hasAttribute("disabled"));
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (first === undefined || last === undefined) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  return (
    <div class="fixed inset-0 z-50 flex items-center justify-center bg-black/40 p-3" onMouseDown={(e) => e.target === e.currentTarget && props.onClose()}>
      <div
        ref={box}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={onKeyDown}
        class={`max-h-[90vh] w-full overflow-auto rounded-lg bg-white p-4 shadow-xl dark:bg-slate-900 ${props.wide === true ? "max-w-3xl" : "max-w-lg"}`}
      >
        <h2 id={titleId} class="mb-3 text-base font-semibold">
          {props.title}
        </h2>
        {props.children}
      </div>
    </div>
  );
}
