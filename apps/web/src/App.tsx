/**
 * The app's routes (@solidjs/router) and the sign-in gate. Every page is a lazy chunk, so
 * the initial download is the shell, the router and the stores; shiki and uPlot come only
 * with the pages that use them.
 *
 * Gate (the router's root): loading → login → (initial password? choose a new one) → the
 * app, whose routed page is the root's children. A route may name a `preload` that starts
 * its page's cached queries while the page's chunk loads (Settings: the users list).
 */
import { createEffect, lazy, Match, onMount, Suspense, Switch, type JSX } from "solid-js";
import { Navigate, Route, Router, type RouteSectionProps } from "@solidjs/router";
import { AppShell } from "./components/layout/AppShell";
import { Notice } from "./components/ui/Notice";
import { Spinner } from "./components/ui/Spinner";
import { auth, loadAuth } from "./state/auth-store";
import { preloadSettings } from "./features/settings/users-data";
import { loadProjects, project } from "./state/project-store";

const LoginPage = lazy(() => import("./features/auth/LoginPage"));
const InitialPasswordPage = lazy(() => import("./features/auth/InitialPasswordPage"));
const ChatPage = lazy(() => import("./features/chat/ChatPage"));
const ModelsPage = lazy(() => import("./features/models/ModelsPage"));
const AgentsPage = lazy(() => import("./features/agents/AgentsPage"));
const UsagePage = lazy(() => import("./features/usage/UsagePage"));
const TracesPage = lazy(() => import("./features/traces/TracesPage"));
const SettingsPage = lazy(() => import("./features/settings/SettingsPage"));

function Loading() {
  return (
    <div class="flex h-full items-center justify-center">
      <Spinner />
    </div>
  );
}

function SignedIn(props: { children?: JSX.Element }) {
  createEffect(() => {
    const userId = auth.me?.userId;
    if (userId !== undefined) void loadProjects(userId);
  });
  return (
    <AppShell>
      {project.error !== undefined && (
        <Notice tone="error" class="m-2">
          {project.error}
        </Notice>
      )}
      <Suspense fallback={<Loading />}>{props.children}</Suspense>
    </AppShell>
  );
}

function Gate(props: RouteSectionProps) {
  onMount(() => void loadAuth());
  return (
    <Switch>
      <Match when={auth.status === "loading"}>
        <Loading />
      </Match>
      <Match when={auth.status === "error"}>
        <div class="p-6">
          <Notice tone="error">The server could not be reached: {auth.error}</Notice>
        </div>
      </Match>
      <Match when={auth.status === "signed-out"}>
        <Suspense fallback={<Loading />}>
          <LoginPage />
        </Suspense>
      </Match>
      <Match when={auth.me?.passwordIsInitial === true}>
        <Suspense fallback={<Loading />}>
          <InitialPasswordPage />
        </Suspense>
      </Match>
      <Match when={true}>
        <SignedIn>{props.children}</SignedIn>
      </Match>
    </Switch>
  );
}

const toChat = () => <Navigate href="/chat" />;

export function App() {
  return (
    <Router root={Gate}>
      <Route path="/" component={toChat} />
      <Route path="/login" component={toChat} />
      <Route path="/chat/:id?" component={ChatPage} />
      <Route path="/models" component={ModelsPage} />
      <Route path="/agents/:agentId?" component={AgentsPage} />
      <Route path="/usage" component={UsagePage} />
      <Route path="/traces" component={TracesPage} />
      <Route path="/settings" component={SettingsPage} preload={preloadSettings} />
      <Route path="*" component={toChat} />
    </Router>
  );
}
