import { ACCESS_TABLE, TERMINAL_HOLDERS, type AccessAction, type AccessDecision, type Welcome } from "../protocol.gen";

export type Access = Welcome["access"];

/**
 * What the room decides for this access and action, from the table the core decides by (generated
 * from `protocol/access.py`): the page offers what the room allows, asks the host for what it asks
 * the host for, and hides the rest. No access yet (before the welcome) is allowed nothing.
 */
export function decision(access: Access | null | undefined, action: AccessAction): AccessDecision {
  return access ? ACCESS_TABLE[action][access] : "deny";
}

/** Whether the room allows it without asking the host. */
export function may(access: Access | null | undefined, action: AccessAction): boolean {
  return decision(access, action) === "allow";
}

/** Whether the room allows it or asks the host for it: the page offers it either way. */
export function mayAsk(access: Access | null | undefined, action: AccessAction): boolean {
  return decision(access, action) !== "deny";
}

/** Whether this access types into a terminal only once the host hands it over (and so asks for it). */
export function holdsWhenHanded(access: string | null | undefined): boolean {
  return (TERMINAL_HOLDERS as readonly string[]).includes(access ?? "");
}
