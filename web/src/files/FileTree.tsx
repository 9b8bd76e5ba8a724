import { useMemo } from "react";
import { mayBrowse, useRoom, useSendOnWelcome } from "../roomClient";
import { buildTree, type TreeNode } from "./tree";

const TREE_WATCH = { t: "tree-watch" } as const;

function Node({ node, onOpen }: { node: TreeNode; onOpen: (path: string) => void }) {
  if (node.children === null) {
    return (
      <li>
        <button type="button" className="tree-file" data-path={node.path} onClick={() => onOpen(node.path)}>
          {node.name}
        </button>
      </li>
    );
  }
  return (
    <li>
      <details>
        <summary>{node.name}/</summary>
        <ul>
          {node.children.map((child) => (
            <Node key={child.path} node={child} onOpen={onOpen} />
          ))}
        </ul>
      </details>
    </li>
  );
}

/** The shared files' paths, live (null until the first tree arrives); asks again after a reconnect. */
export function useSharedPaths(): readonly string[] | null {
  useSendOnWelcome(TREE_WATCH, mayBrowse);
  return useRoom((s) => s.tree);
}

/** The shared files, nested. */
export function FileTree({ onOpen }: { onOpen: (path: string) => void }) {
  const paths = useSharedPaths();
  const tree = useMemo(() => buildTree(paths ?? []), [paths]);
  if (paths === null) return null;
  return (
    <ul className="file-tree" data-testid="file-tree">
      {tree.map((node) => (
        <Node key={node.path} node={node} onOpen={onOpen} />
      ))}
    </ul>
  );
}
