/**
 * A Vite plugin that writes a gzip and a brotli copy beside each built text file (the Python
 * server sends the one the browser takes), prints what each page's first load costs in
 * compressed JavaScript, and fails the build when a page goes over the budget.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Plugin } from "vite";

/** What the server sends compressed: the hashed assets (index.html is tiny and never cached). */
const COMPRESSIBLE = /^assets\/.*\.(js|css|svg)$/;
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export interface ChunkGraph {
  fileName: string;
  isEntry: boolean;
  /** Chunks this one imports statically, so the browser fetches them with it. */
  imports: string[];
  /** The module the chunk stands for (a page's lazy module), when it has one. */
  facadeModuleId: string | null;
}

/**
 * The JavaScript a page fetches before it can run: the entry chunk, the page's own chunk (the
 * lazily imported module named `page`), and everything they import statically; not what loads
 * on demand later.
 */
export function firstLoad(chunks: ChunkGraph[], page: string): string[] {
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const pageChunk = chunks.find((chunk) => chunk.facadeModuleId?.endsWith(page));
  if (!pageChunk) throw new Error(`no chunk is built for the page ${page}`);
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const imported of byName.get(name)?.imports ?? []) visit(imported);
  };
  for (const chunk of chunks) if (chunk.isEntry) visit(chunk.fileName);
  visit(pageChunk.fileName);
  return [...seen].sort();
}

export interface PageCost {
  page: string;
  files: string[];
  gzip: number;
  brotli: number;
}

/** The pages over `budget` bytes of gzip (what a browser on plain HTTP is sent), as messages. */
export function overBudget(costs: PageCost[], budget: number): string[] {
  return costs
    .filter((cost) => cost.gzip >= budget)
    .map((cost) => `the ${cost.page} page's first load is ${kb(cost.gzip)} of gzipped JavaScript, over the ${kb(budget)} budget`);
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function compressAndBudget(options: { pages: Record<string, string>; budgetBytes: number }): Plugin {
  return {
    name: "canvas-compress-and-budget",
    apply: "build",
    async writeBundle(output, bundle) {
      const dir = output.dir!;
      const sizes = new Map<string, { gzip: number; brotli: number }>();
      // zlib's thread pool compresses the files side by side.
      await Promise.all(
        Object.values(bundle)
          .filter((file) => COMPRESSIBLE.test(file.fileName))
          .map(async (file) => {
            const raw = Buffer.from(file.type === "chunk" ? file.code : file.source);
            const [gz, br] = await Promise.all([
              gzipAsync(raw, { level: 9 }),
              brotliAsync(raw, {
                params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
              }),
            ]);
            await Promise.all([writeFile(join(dir, `${file.fileName}.gz`), gz), writeFile(join(dir, `${file.fileName}.br`), br)]);
            sizes.set(file.fileName, { gzip: gz.length, brotli: br.length });
          }),
      );
      const chunks: ChunkGraph[] = Object.values(bundle).flatMap((file) =>
        file.type === "chunk"
          ? [{ fileName: file.fileName, isEntry: file.isEntry, imports: file.imports, facadeModuleId: file.facadeModuleId }]
          : [],
      );
      const costs = Object.entries(options.pages).map(([page, module]): PageCost => {
        const files = firstLoad(chunks, module);
        const total = (key: "gzip" | "brotli") => files.reduce((sum, name) => sum + (sizes.get(name)?.[key] ?? 0), 0);
        return { page, files, gzip: total("gzip"), brotli: total("brotli") };
      });
      this.info(`first load, compressed JavaScript (budget ${kb(options.budgetBytes)} gzip per page):`);
      for (const cost of costs) {
        this.info(`  ${cost.page.padEnd(6)} ${kb(cost.gzip).padStart(9)} gzip ${kb(cost.brotli).padStart(9)} brotli  ${cost.files.join(", ")}`);
      }
      const problems = overBudget(costs, options.budgetBytes);
      if (problems.length > 0) this.error(problems.join("; "));
    },
  };
}
