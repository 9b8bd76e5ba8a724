import { registerFrameContent } from "../frames";
import { AgentView } from "./AgentView";

registerFrameContent("agent", AgentView);
