import type { ComponentType } from "react";
import type { HoldsType } from "./board/model";

/** What a board frame holds (ADR 0003): an agent session, a terminal or a file. */
export type FrameKind = HoldsType;

export interface FrameContentProps {
  /** The held thing's id: a session id, a terminal id, or a shared file's path. */
  refId: string;
  title: string;
  width: number;
  height: number;
}

/**
 * Components that render a board frame's content, by what the frame holds. Features register
 * theirs (agents, terminals, files); the board draws a labelled placeholder for the rest.
 */
export const frameContent: Partial<Record<FrameKind, ComponentType<FrameContentProps>>> = {};

export function registerFrameContent(kind: FrameKind, component: ComponentType<FrameContentProps>): void {
  frameContent[kind] = component;
}
