import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";
import { compressAndBudget } from "./compress.ts";

// `npm run dev` serves the app with hot reload and forwards the server's endpoints to a
// running `canvas serve --port 8477`.
const target = process.env.CANVAS_SERVER ?? "http://127.0.0.1:8477";

/** What the first load of each page (host, guest) may cost in gzipped JavaScript (adr/0006). */
const BUDGET_BYTES = 250 * 1024;

export default defineConfig({
  plugins: [
    react(),
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
  },
});
