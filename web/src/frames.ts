import type { ComponentType } from "react";
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

/**
 * Components that render a board frame's content, by what the frame holds. Features register
 * theirs (agents, terminals, files); the board draws a labelled placeholder for the rest.
 */
export const frameContent: Partial<Record<FrameKind, ComponentType<FrameContentProps>>> = {};

export function registerFrameContent(kind: FrameKind, component: ComponentType<FrameContentProps>): void {
  frameContent[kind] = component;
}

export interface FramePickerProps {
  /** Called with what the new frame holds, once the person chose something that may be shown. */
  onPick: (ref: string, title: string) => void;
  onClose: () => void;
}

/**
 * Dialogs that choose what a new frame holds, for kinds whose `ref` a person picks (a shared
 * file); kinds without one get a new id of their own.
 */
export const framePickers: Partial<Record<FrameKind, ComponentType<FramePickerProps>>> = {};

export function registerFramePicker(kind: FrameKind, component: ComponentType<FramePickerProps>): void {
  framePickers[kind] = component;
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
