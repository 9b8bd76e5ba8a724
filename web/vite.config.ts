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
    compressAndBudget({ pages: { host: "src/App.tsx", guest: "src/guest/GuestPage.tsx" }, budgetBytes: BUDGET_BYTES }),
  ],
  build: {
    outDir: "../canvasrelay/web_dist",
    emptyOutDir: true,
    // Read by the tests that check which chunks each page loads.
    manifest: true,
    chunkSizeWarningLimit: 400,
    rolldownOptions: {
      output: {
        // Named shared chunks: React changes least, so it stays cached the longest; the board is
        // what both pages draw. The rest splits by page and by what loads on demand.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            { name: "board", test: /node_modules[\\/](@xyflow|yjs|lib0|d3-[a-z]+|zustand|classcat|perfect-freehand)[\\/]|src[\\/]board[\\/]/ },
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
