import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// `npm run dev` serves the app with hot reload and forwards the server's endpoints to a
// running `canvas serve --port 8477`.
const target = process.env.CANVAS_SERVER ?? "http://127.0.0.1:8477";

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "../canvasrelay/web_dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
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
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
  },
});
