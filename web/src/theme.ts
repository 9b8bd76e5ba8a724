/**
 * Light or dark: the system's `prefers-color-scheme` unless the person chose one (kept in local
 * storage). The resolved theme is set as `data-theme` on <html>, which the CSS variables follow;
 * xterm and React Flow, which take colours in code, listen here.
 */
import { useSyncExternalStore } from "react";
import { Listeners } from "./listeners";

export type Theme = "light" | "dark";
export type ThemeChoice = Theme | "system";

const KEY = "canvas.theme";
const listeners = new Listeners();
const systemDark = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;

export function resolveTheme(choice: ThemeChoice, prefersDark: boolean): Theme {
  return choice === "system" ? (prefersDark ? "dark" : "light") : choice;
}

export function parseChoice(stored: string | null): ThemeChoice {
  return stored === "light" || stored === "dark" ? stored : "system";
}

export function themeChoice(): ThemeChoice {
  return parseChoice(localStorage.getItem(KEY));
}

export function currentTheme(): Theme {
  return resolveTheme(themeChoice(), systemDark?.matches ?? false);
}

function apply(): void {
  const theme = currentTheme();
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
  listeners.emit();
}

export function chooseTheme(choice: ThemeChoice): void {
  if (choice === "system") localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  apply();
}

/** Sets the theme on the page now and keeps it following the system setting. */
export function startTheme(): void {
  apply();
  systemDark?.addEventListener("change", apply);
  // Another tab of this page changed the choice.
  window.addEventListener("storage", (event) => {
    if (event.key === KEY) apply();
  });
}

export function onTheme(listener: () => void): () => void {
  return listeners.add(listener);
}

export function useTheme(): Theme {
  return useSyncExternalStore(onTheme, currentTheme);
}

export function useThemeChoice(): ThemeChoice {
  return useSyncExternalStore(onTheme, themeChoice);
}
