// Test setup for the jsdom suite: jest-dom matchers, and unmounting what each test rendered
// (Vitest runs without globals, so testing-library cannot register its own cleanup).
import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => cleanup());
