/**
 * Entry point: applies the stored theme before the first render (no flash of the wrong
 * theme), loads the global styles and mounts the app.
 */
import { render } from "solid-js/web";
import { App } from "./App";
import { bootTheme } from "./state/theme-store";
import "./styles.css";

bootTheme();

const root = document.getElementById("root");
if (root === null) throw new Error("index.html must contain <div id=\"root\">");
render(() => <App />, root);
