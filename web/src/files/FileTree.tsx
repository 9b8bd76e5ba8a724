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

/** The shared files, live: asks for the tree (again after a reconnect) and shows it nested. */
export function FileTree({ onOpen }: { onOpen: (path: string) => void }) {
  const paths = useRoom((s) => s.tree);
  useSendOnWelcome(TREE_WATCH, mayBrowse);
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
