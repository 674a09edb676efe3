/**
 * Entry point: applies the stored theme before the first render (no flash of the wrong
 * theme), loads the global styles and mounts the app.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { bootTheme } from "./state/theme-store";
import "./styles.css";

bootTheme();

const root = document.getElementById("root");
if (root === null) throw new Error("index.html must contain <div id=\"root\">");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
