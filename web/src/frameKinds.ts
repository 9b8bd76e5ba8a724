/**
 * Every kind of frame the board shows, declared once and given to the board by each page: what
 * renders its content and, where a person chooses what it holds, the picker.
 */
import { lazy } from "react";
import { AgentMenuDialog } from "./agents/AgentMenu";
import { FilePicker } from "./files/FilePicker";
import { FileView } from "./files/FileView";
import type { FrameKindSpec } from "./frames";

export const FRAME_KINDS: readonly FrameKindSpec[] = [
  {
    kind: "agent",
    // The thread view (with the markdown renderer) is loaded with the first agent frame, not with the page.
    content: lazy(() => import("./agents/AgentView").then((module) => ({ default: module.AgentView }))),
    // The toolbar's Agent button opens the menu of agents on offer; the one picked starts in the new frame.
    picker: AgentMenuDialog,
  },
  {
    kind: "terminal",
    // xterm is loaded with the first terminal frame, not with the page.
    content: lazy(() => import("./terminals/TerminalView").then((module) => ({ default: module.TerminalView }))),
  },
  { kind: "file", content: FileView, picker: FilePicker },
];
