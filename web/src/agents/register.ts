import { lazy } from "react";
import { registerFrameContent, registerFramePicker } from "../frames";
import { AgentMenuDialog } from "./AgentMenu";

// The thread view (with the markdown renderer) is loaded with the first agent frame, not with the page.
registerFrameContent(
  "agent",
  lazy(() => import("./AgentView").then((module) => ({ default: module.AgentView }))),
);

// The toolbar's Agent button opens the menu of agents on offer; the one picked starts in the new frame.
registerFramePicker("agent", AgentMenuDialog);
