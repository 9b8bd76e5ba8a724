import { readFileSync } from "node:fs";
import react from "@vitejs/plugin-react";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";
import { compressAndBudget } from "./compress.ts";

// `npm run dev` serves the app with hot reload and forwards the server's endpoints to a
// running `canvas serve --port 8477`.
const target = process.env.CANVAS_SERVER ?? "http://127.0.0.1:8477";

/** What the first load of each page (host, guest) may cost in gzipped JavaScript (adr/0006). */
const BUDGET_BYTES = 250 * 1024;

/** The tests that run again without WebCrypto. */
const WITHOUT_WEBCRYPTO = [
  "src/cryptoPrimitives.test.ts",
  "src/join/signalCrypto.test.ts",
  "src/join/guestIdentity.test.ts",
  "src/join/nostrEvent.test.ts",
  "src/join/nostrRelays.test.ts",
  "src/guests/visibleText.test.ts",
];

/**
 * The built page's own policy (adr/0028), for a copy of it served by something other than canvas:
 * canvasrelay/page/policy.json's list, which the server sends too, but where it may
 * connect (the server says that, and the page narrows it to its link) and frame-ancestors (which a
 * page cannot say for itself). tests/test_page_policy.py checks the built page carries it.
 */
const SERVED_POLICY = JSON.parse(readFileSync(new URL("../canvasrelay/page/policy.json", import.meta.url), "utf8")) as {
  bundleOnly: string[];
};
const PAGE_POLICY = [
  ...SERVED_POLICY.bundleOnly.filter((directive) => !directive.startsWith("frame-ancestors")),
  "connect-src 'self' http: https: ws: wss:",
].join("; ");

/** Puts `PAGE_POLICY` first in the built page's head (not in `npm run dev`, whose page runs inline scripts). */
function pagePolicy(): Plugin {
  return {
    name: "canvas-page-policy",
    apply: "build",
    transformIndexHtml: () => [{ tag: "meta", attrs: { "http-equiv": "Content-Security-Policy", content: PAGE_POLICY }, injectTo: "head-prepend" }],
  };
}

export default defineConfig({
  // Relative asset paths: the same bundle serves from this server's root and from any folder of a static host.
  base: "./",
  plugins: [
    react(),
    pagePolicy(),
    compressAndBudget({ pages: { host: "src/App.tsx", guest: "src/join/GuestPage.tsx" }, budgetBytes: BUDGET_BYTES }),
  ],
  build: {
    outDir: "../canvasrelay/web_dist",
    emptyOutDir: true,
    // Read by the tests that check which chunks each page loads.
    manifest: true,
    chunkSizeWarningLimit: 400,
    rolldownOptions: {
      output: {
        // React changes least, so its own chunk stays cached the longest. The rest splits by page
        // (host, guest), what both share (the board), and what loads on demand.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/, priority: 2 },
            // Terminals and the timeline load it on demand, so it is never part of a page's first load.
            { name: "xterm", test: /node_modules[\\/]@xterm[\\/]/, priority: 2 },
            { name: "shared", minShareCount: 2, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      "/ws": { target, ws: true, headers: { origin: target } },
      "/signal": { target, ws: true, headers: { origin: target } },
      "/api": { target },
      "/mcp": { target },
    },
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "*.test.ts"],
    // The tests of what stands on cryptoPrimitives run twice: with WebCrypto, and as a page that is
    // not a secure context has none, through the pure-JS fallback (adr/0032).
    projects: [
      { extends: true, test: { name: "webcrypto" } },
      { extends: true, test: { name: "no-webcrypto", include: WITHOUT_WEBCRYPTO, setupFiles: ["src/withoutWebCrypto.ts"] } },
    ],
  },
});
