import type { Welcome } from "../protocol.gen";

/** A welcome for tests: a host in room "r" serving "/project", with `fields` over that. */
export function welcomeFrame(fields: Partial<Omit<Welcome, "t">> = {}): Welcome {
  return {
    t: "welcome",
    roomId: "r",
    hostPublicKey: "h",
    project: "project",
    cwd: "/project",
    access: "host",
    peerId: "p",
    agents: [],
    board: "",
    boardSize: 0,
    boardVersion: 0,
    boardWarning: null,
    sessions: [],
    approvals: [],
    headsAfter: null,
    ...fields,
  };
}
