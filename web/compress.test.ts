import { describe, expect, it } from "vitest";
import { type ChunkGraph, firstLoad, overBudget } from "./compress";

const chunks: ChunkGraph[] = [
  { fileName: "index.js", isEntry: true, imports: ["react.js"], facadeModuleId: "/web/index.html" },
  { fileName: "react.js", isEntry: false, imports: [], facadeModuleId: null },
  { fileName: "App.js", isEntry: false, imports: ["board.js", "host-panels.js"], facadeModuleId: "/web/src/App.tsx" },
  { fileName: "GuestPage.js", isEntry: false, imports: ["board.js"], facadeModuleId: "/web/src/join/GuestPage.tsx" },
  { fileName: "board.js", isEntry: false, imports: ["react.js"], facadeModuleId: null },
  { fileName: "host-panels.js", isEntry: false, imports: [], facadeModuleId: null },
  { fileName: "xterm.js", isEntry: false, imports: ["react.js"], facadeModuleId: "/web/src/terminals/TerminalView.tsx" },
];

describe("firstLoad", () => {
  it("takes the entry, the page's chunk and what they import, not what loads on demand", () => {
    expect(firstLoad(chunks, "src/App.tsx")).toEqual(["App.js", "board.js", "host-panels.js", "index.js", "react.js"]);
    expect(firstLoad(chunks, "src/join/GuestPage.tsx")).toEqual(["GuestPage.js", "board.js", "index.js", "react.js"]);
  });

  it("fails loudly for a page that was not built", () => {
    expect(() => firstLoad(chunks, "src/Missing.tsx")).toThrow(/Missing/);
  });
});

describe("overBudget", () => {
  it("names each page at or over the budget, and none under it", () => {
    const costs = [
      { page: "host", files: [], gzip: 250 * 1024, brotli: 0 },
      { page: "guest", files: [], gzip: 249 * 1024, brotli: 0 },
    ];
    expect(overBudget(costs, 250 * 1024)).toEqual([
      "the host page's first load is 250.0 KB of gzipped JavaScript, over the 250.0 KB budget",
    ]);
  });
});
