/**
 * The few icons the app draws, as inline SVG (no icon font, no emoji: headless and minimal
 * systems often lack an emoji font and would show empty boxes). Decorative by default
 * (`aria-hidden`); the control that holds one carries the accessible name.
 */
export type IconName = "penguin" | "lock" | "plus" | "file" | "image" | "folder" | "up" | "menu" | "subagent" | "goal" | "fork" | "signout";

const PATHS: Record<IconName, string> = {
  penguin: "M12 2c-3 0-5 2.5-5 6v3c-1.5 1.5-3 3.5-3 6 0 2.5 2 5 8 5s8-2.5 8-5c0-2.5-1.5-4.5-3-6V8c0-3.5-2-6-5-6zm-2 5a1 1 0 110 2 1 1 0 010-2zm4 0a1 1 0 110 2 1 1 0 010-2zm-2 3l1.5 1.5h-3L12 10zm0 3c2.5 0 4 2 4 4.5S14.5 20 12 20s-4-.5-4-2.5S9.5 13 12 13z",
  lock: "M7 10V7a5 5 0 0110 0v3h1a1 1 0 011 1v9a1 1 0 01-1 1H6a1 1 0 01-1-1v-9a1 1 0 011-1h1zm2 0h6V7a3 3 0 00-6 0v3z",
  plus: "M11 5h2v6h6v2h-6v6h-2v-6H5v-2h6z",
  file: "M6 2h8l5 5v13a2 2 0 01-2 2H6a2 2 0 01-2-2V4a2 2 0 012-2zm7 1.5V8h4.5L13 3.5z",
  image: "M4 4h16a2 2 0 012 2v12a2 2 0 01-2 2H4a2 2 0 01-2-2V6a2 2 0 012-2zm0 12l4-4 3 3 5-5 4 4V6H4v10zm4-6a2 2 0 110-4 2 2 0 010 4z",
  folder: "M3 5a2 2 0 012-2h4l2 2h8a2 2 0 012 2v10a2 2 0 01-2 2H5a2 2 0 01-2-2V5z",
  up: "M12 4l7 7h-5v9h-4v-9H5z",
  signout: "M10 3h9a2 2 0 012 2v14a2 2 0 01-2 2h-9v-2h9V5h-9zM9 8l1.4 1.4L8.8 11H16v2H8.8l1.6 1.6L9 16l-4-4z",
  menu: "M3 6h18v2H3zm0 5h18v2H3zm0 5h18v2H3z",
  goal: "M5 2h2v1h12l-2.5 4.5L19 12H7v10H5V2zm2 3v5h8.6l-1.4-2.5L15.6 5H7z",
  fork: "M6 2a3 3 0 011 5.8v1.7c0 1 .8 1.5 1.6 1.5h6.8c.8 0 1.6-.5 1.6-1.5V7.8a3 3 0 112 0v1.7c0 2.2-1.8 3.5-3.6 3.5H13v3.2a3 3 0 11-2 0V13H8.6C6.8 13 5 11.7 5 9.5V7.8A3 3 0 016 2z",
  subagent: "M5 3h2v9a3 3 0 003 3h7.2l-2.6-2.6L16 11l5 5-5 5-1.4-1.4 2.6-2.6H10a5 5 0 01-5-5V3z",
};

export function Icon(props: { name: IconName; class?: string }) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" class={`inline-block shrink-0 fill-current ${props.class ?? "h-4 w-4"}`}>
      <path d={PATHS[props.name]} />
    </svg>
  );
}
