import { lazy } from "react";
import { registerFrameContent } from "../frames";

// The thread view (with the markdown renderer) is loaded with the first agent frame, not with the page.
registerFrameContent(
  "agent",
  lazy(() => import("./AgentView").then((module) => ({ default: module.AgentView }))),
);
