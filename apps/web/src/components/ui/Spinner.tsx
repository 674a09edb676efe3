/** A small busy indicator with an accessible name (the visible dots are decorative). */
export function Spinner(props: { label?: string }) {
  return (
    <span role="status" aria-label={props.label ?? "Loading"} class="inline-flex items-center gap-1 text-slate-500">
      <span aria-hidden="true" class="h-2 w-2 animate-pulse rounded-full bg-current" />
      <span aria-hidden="true" class="h-2 w-2 animate-pulse rounded-full bg-current [animation-delay:150ms]" />
      <span aria-hidden="true" class="h-2 w-2 animate-pulse rounded-full bg-current [animation-delay:300ms]" />
    </span>
  );
}
