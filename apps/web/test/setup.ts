// Test setup for the jsdom suite: the handful of DOM matchers the component tests use, written
// here because @testing-library/jest-dom's current releases need Node 22 (this repo runs on
// Node 20), and unmounting what each test rendered (Vitest runs without globals, so
// @solidjs/testing-library cannot register its own cleanup).
import { cleanup } from "@solidjs/testing-library";
import { afterEach, expect } from "vitest";

afterEach(() => cleanup());

interface DomMatchers<R = unknown> {
  toBeInTheDocument(): R;
  toHaveTextContent(text: string | RegExp): R;
  toHaveValue(value: string | number | null): R;
  toHaveAttribute(name: string, value?: string): R;
  toBeDisabled(): R;
  toBeEnabled(): R;
  toHaveFocus(): R;
  toContainElement(element: Element | null): R;
  toBeChecked(): R;
}

declare module "vitest" {
  // The type parameter must match vitest's own declaration, `any` included.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends DomMatchers<T> {}
}

function element(received: unknown, matcher: string): Element {
  if (received instanceof Element) return received;
  throw new Error(`${matcher}: expected a DOM element, got ${String(received)}`);
}

function describe(el: Element): string {
  const id = el.id === "" ? "" : `#${el.id}`;
  return `<${el.tagName.toLowerCase()}${id}>`;
}

function collapse(text: string | null): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

/** A control is disabled by its own attribute or by a disabled <fieldset> around it. */
function isDisabled(el: Element): boolean {
  if ("disabled" in el && (el as HTMLButtonElement).disabled) return true;
  return el.closest("fieldset[disabled]") !== null;
}

function valueOf(el: Element): string | number | null {
  if (el instanceof HTMLInputElement) {
    if (el.type === "number") return el.value === "" ? null : Number(el.value);
    return el.value;
  }
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return el.value;
  return null;
}

expect.extend({
  toBeInTheDocument(received: unknown) {
    const pass = received instanceof Element && received.ownerDocument.contains(received);
    return { pass, message: () => `expected ${received instanceof Element ? describe(received) : String(received)} ${pass ? "not " : ""}to be in the document` };
  },
  toHaveTextContent(received: unknown, text: string | RegExp) {
    const el = element(received, "toHaveTextContent");
    const content = collapse(el.textContent);
    const pass = typeof text === "string" ? content.includes(collapse(text)) : text.test(content);
    return { pass, message: () => `expected ${describe(el)} ${pass ? "not " : ""}to have text ${String(text)}, it has "${content}"` };
  },
  toHaveValue(received: unknown, value: string | number | null) {
    const el = element(received, "toHaveValue");
    const actual = valueOf(el);
    const pass = actual === value;
    return { pass, message: () => `expected ${describe(el)} ${pass ? "not " : ""}to have value ${JSON.stringify(value)}, it has ${JSON.stringify(actual)}` };
  },
  toHaveAttribute(received: unknown, name: string, value?: string) {
    const el = element(received, "toHaveAttribute");
    const actual = el.getAttribute(name);
    const pass = value === undefined ? actual !== null : actual === value;
    return { pass, message: () => `expected ${describe(el)} ${pass ? "not " : ""}to have attribute ${name}${value === undefined ? "" : `="${value}"`}, it has ${JSON.stringify(actual)}` };
  },
  toBeDisabled(received: unknown) {
    const el = element(received, "toBeDisabled");
    const pass = isDisabled(el);
    return { pass, message: () => `expected ${describe(el)} ${pass ? "not " : ""}to be disabled` };
  },
  toBeEnabled(received: unknown) {
    const el = element(received, "toBeEnabled");
    const pass = !isDisabled(el);
    return { pass, message: () => `expected ${describe(el)} ${pass ? "not " : ""}to be enabled` };
  },
  toHaveFocus(received: unknown) {
    const el = element(received, "toHaveFocus");
    const pass = el.ownerDocument.activeElement === el;
    const active = el.ownerDocument.activeElement;
    return { pass, message: () => `expected ${describe(el)} ${pass ? "not " : ""}to have focus (focus is on ${active === null ? "nothing" : describe(active)})` };
  },
  toContainElement(received: unknown, child: Element | null) {
    const el = element(received, "toContainElement");
    const pass = child !== null && el.contains(child);
    return { pass, message: () => `expected ${describe(el)} ${pass ? "not " : ""}to contain ${child === null ? "null" : describe(child)}` };
  },
  toBeChecked(received: unknown) {
    const el = element(received, "toBeChecked");
    const pass = (el instanceof HTMLInputElement && el.checked) || el.getAttribute("aria-checked") === "true";
    return { pass, message: () => `expected ${describe(el)} ${pass ? "not " : ""}to be checked` };
  },
});
