import { type ComponentType, createContext, useContext } from "react";
import type { HoldsType } from "./board/model";
import { sessionName, terminalName } from "./room/roomState";
import { useRoom } from "./roomClient";

/** What a board frame holds (ADR 0003): an agent session, a terminal or a file. */
export type FrameKind = HoldsType;

export interface FrameContentProps {
  /** The held thing's id: a session id, a terminal id, or a shared file's path. */
  refId: string;
  title: string;
  /** Board units in a frame; a side-panel copy may fill its column ("100%"). */
  width: number | string;
  height: number;
  /** Opened on its own at the screen's width (a phone's sheet), not a frame among others. */
  opened?: boolean;
}

export interface FramePickerProps {
  /** Called with what the new frame holds, once the person chose something that may be shown. */
  onPick: (ref: string, title: string) => void;
  onClose: () => void;
}

/**
 * One kind of frame the board can show: the component that renders what it holds, and for
 * kinds whose `ref` a person picks (an agent to start, a shared file) the dialog that picks it;
 * kinds without one (a terminal) get a new id of their own.
 */
export interface FrameKindSpec {
  kind: FrameKind;
  content: ComponentType<FrameContentProps>;
  picker?: ComponentType<FramePickerProps>;
}

/**
 * The frame kinds the board was given (the page's one list): a kind not in it is drawn as a
 * labelled placeholder.
 */
export const FrameKinds = createContext<readonly FrameKindSpec[]>([]);

export function useFrameKind(kind: FrameKind | undefined): FrameKindSpec | undefined {
  return useContext(FrameKinds).find((spec) => spec.kind === kind);
}

/**
 * What a frame is called: the session's or terminal's human name ("Demo agent 1", "Terminal 1"),
 * a file's path, or the frame's own title; never an id.
 */
export function useFrameName(holds: { type: FrameKind; ref: string } | undefined, title: string | undefined): string {
  const name = useRoom((s) =>
    holds?.type === "agent" ? sessionName(s, holds.ref) : holds?.type === "terminal" ? terminalName(s, holds.ref) : null,
  );
  if (name) return name;
  if (title) return title;
  if (holds?.type === "file") return holds.ref;
  return holds?.type === "terminal" ? "A terminal" : holds?.type === "agent" ? "An agent session" : "Frame";
}
