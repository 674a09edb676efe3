/** A scrolling page body with a title row, used by every page but the chat. */
import type { ReactNode } from "react";

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <main className="h-full overflow-y-auto">
      <div className="mx-auto flex max-w-6xl flex-col gap-4 p-3 sm:p-6">
        <div className="flex flex-wrap items-center gap-2">
          <h1 className="flex-1 text-lg font-semibold">{title}</h1>
          {actions}
        </div>
        {children}
      </div>
    </main>
  );
}
