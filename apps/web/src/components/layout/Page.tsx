/** A scrolling page body with a title row, used by every page but the chat. */
import type { JSX } from "solid-js";

export function Page(props: { title: string; actions?: JSX.Element; children: JSX.Element }) {
  return (
    <main class="h-full overflow-y-auto">
      <div class="mx-auto flex max-w-6xl flex-col gap-4 p-3 sm:p-6">
        <div class="flex flex-wrap items-center gap-2">
          <h1 class="flex-1 text-lg font-semibold">{props.title}</h1>
          {props.actions}
        </div>
        {props.children}
      </div>
    </main>
  );
}
