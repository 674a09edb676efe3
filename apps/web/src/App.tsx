/**
 * The app's routes (react-router in library mode) and the sign-in gate. Every page is a
 * lazy chunk, so the initial download is the shell, the router and the stores; shiki and
 * uPlot come only with the pages that use them.
 *
 * Gate: loading → login → (initial password? choose a new one) → the app.
 */
import { lazy, Suspense, useEffect } from "react";
import { BrowserRouter, Navigate, Route, Routes } from "react-router";
import { AppShell } from "./components/layout/AppShell";
import { Notice } from "./components/ui/Notice";
import { Spinner } from "./components/ui/Spinner";
import { useAuth } from "./state/auth-store";
import { useProject } from "./state/project-store";

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
    <div className="flex h-full items-center justify-center">
      <Spinner />
    </div>
  );
}

function SignedIn() {
  const me = useAuth((s) => s.me);
  const load = useProject((s) => s.load);
  const error = useProject((s) => s.error);
  useEffect(() => {
    if (me !== undefined) void load(me.userId);
  }, [me, load]);
  return (
    <AppShell>
      {error !== undefined && (
        <Notice tone="error" className="m-2">
          {error}
        </Notice>
      )}
      <Suspense fallback={<Loading />}>
        <Routes>
          <Route path="/" element={<Navigate to="/chat" replace />} />
          <Route path="/login" element={<Navigate to="/chat" replace />} />
          <Route path="/chat" element={<ChatPage />} />
          <Route path="/chat/:id" element={<ChatPage />} />
          <Route path="/models" element={<ModelsPage />} />
          <Route path="/agents" element={<AgentsPage />} />
          <Route path="/agents/:agentId" element={<AgentsPage />} />
          <Route path="/usage" element={<UsagePage />} />
          <Route path="/traces" element={<TracesPage />} />
          <Route path="/settings" element={<SettingsPage />} />
          <Route path="*" element={<Navigate to="/chat" replace />} />
        </Routes>
      </Suspense>
    </AppShell>
  );
}

function Gate() {
  const { status, me, error, load } = useAuth();
  useEffect(() => {
    void load();
  }, [load]);
  if (status === "loading") return <Loading />;
  if (status === "error") {
    return (
      <div className="p-6">
        <Notice tone="error">The server could not be reached: {error}</Notice>
      </div>
    );
  }
  return (
    <Suspense fallback={<Loading />}>
      {status === "signed-out" ? <LoginPage /> : me?.passwordIsInitial === true ? <InitialPasswordPage /> : <SignedIn />}
    </Suspense>
  );
}

export function App() {
  return (
    <BrowserRouter>
      <Gate />
    </BrowserRouter>
  );
}
