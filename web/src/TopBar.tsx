import type { ReactNode } from "react";
import { chooseTheme, type ThemeChoice, useThemeChoice } from "./theme";

const CHOICES: [ThemeChoice, string][] = [
  ["system", "System theme"],
  ["light", "Light theme"],
  ["dark", "Dark theme"],
];

/** The bar across the top of the host's and the guests' pages: the name, the connection state, and more. */
export function TopBar({ state, label, children }: { state: string; label: string; children?: ReactNode }) {
  const theme = useThemeChoice();
  return (
    <header className="topbar">
      <h1 className="brand">canvas</h1>
      <span className={`status status-${state}`} data-testid="connection-state" role="status">
        {label}
      </span>
      {children}
      <label className="theme-choice">
        <span className="visually-hidden">Colour scheme</span>
        <select data-testid="theme-choice" value={theme} onChange={(event) => chooseTheme(event.target.value as ThemeChoice)}>
          {CHOICES.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </label>
    </header>
  );
}
