/** The shared tree as nested folders, from the flat sorted paths of a `tree` frame. */

export interface TreeNode {
  name: string;
  /** The `/`-separated path from the served folder; a folder's path has no trailing slash. */
  path: string;
  children: TreeNode[] | null;
}

export function buildTree(paths: readonly string[]): TreeNode[] {
  const root: TreeNode = { name: "", path: "", children: [] };
  for (const path of paths) {
    const parts = path.split("/");
    let node = root;
    parts.forEach((name, i) => {
      const isFile = i === parts.length - 1;
      const childPath = parts.slice(0, i + 1).join("/");
      let child = node.children!.find((c) => c.name === name && (c.children === null) === isFile);
      if (!child) {
        child = { name, path: childPath, children: isFile ? null : [] };
        node.children!.push(child);
      }
      node = child;
    });
  }
  sortTree(root);
  return root.children!;
}

/** Folders first, then files, each by name. */
function sortTree(node: TreeNode): void {
  if (!node.children) return;
  node.children.sort((a, b) => {
    if ((a.children === null) !== (b.children === null)) return a.children === null ? 1 : -1;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  node.children.forEach(sortTree);
}

const LANGUAGES: Record<string, string> = {
  js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript",
  ts: "typescript", tsx: "typescript", mts: "typescript",
  py: "python", pyi: "python",
  json: "json",
  sh: "bash", bash: "bash", zsh: "bash",
  css: "css", scss: "css",
  html: "xml", htm: "xml", xml: "xml", svg: "xml",
  md: "markdown", markdown: "markdown",
  yml: "yaml", yaml: "yaml",
  toml: "ini", ini: "ini", cfg: "ini",
  rs: "rust",
  go: "go",
  diff: "diff", patch: "diff",
  sql: "sql",
  c: "c", h: "c",
  cc: "cpp", cpp: "cpp", hpp: "cpp",
  java: "java",
};

/** The highlight.js language for a path, or null for plain text. */
export function languageFor(path: string): string | null {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  if (name === "dockerfile" || name === "makefile") return null;
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  return LANGUAGES[name.slice(dot + 1)] ?? null;
}

/**
 * The paths that match what someone typed, best first: every word of the query must appear in
 * the path (case aside); a path whose file name holds the query comes before one that holds it
 * only in a folder's name, then shorter paths first.
 */
export function filterPaths(paths: readonly string[], query: string): string[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...paths];
  const score = (path: string) => {
    const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
    return words.every((word) => name.includes(word)) ? 0 : 1;
  };
  return paths
    .filter((path) => words.every((word) => path.toLowerCase().includes(word)))
    .sort((a, b) => score(a) - score(b) || a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}
