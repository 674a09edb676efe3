// Component tests of parts that hold router links: the children are rendered as the root of
// an in-memory router (one catch-all route), so <A> and useParams work as in the app.
import type { JSX } from "solid-js";
import { MemoryRouter, Route } from "@solidjs/router";

export function TestRouter(props: { children: JSX.Element }) {
  return (
    <MemoryRouter root={() => props.children}>
      <Route path="*" component={() => null} />
    </MemoryRouter>
  );
}
