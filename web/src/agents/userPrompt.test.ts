import { describe, expect, it } from "vitest";
import { authorShown, promptShown } from "./userPrompt";

describe("a prompt in the thread", () => {
  const named = { text: "Ada (guest, edit): list the files", asWritten: "list the files" };

  it("shows the guest's own words, and the host what the agent got", () => {
    expect(promptShown(named, false)).toEqual({ written: "list the files", agentGot: null });
    expect(promptShown(named, true)).toEqual({ written: "list the files", agentGot: "Ada (guest, edit): list the files" });
  });

  it("shows a prompt that reached the agent as written once", () => {
    // The host's own prompt, or a guest's in a session the host set to pass prompts as written.
    const plain = { text: "Ada (guest, edit): looks named but is not", asWritten: null };
    expect(promptShown(plain, true)).toEqual({ written: plain.text, agentGot: null });
  });
});

describe("who sent a prompt", () => {
  const fromHost = { author: "Maria", byHost: true };
  const fromGuest = { author: "Maria", byHost: false };

  it("is You on the host's page and the host's name on a guest's", () => {
    expect(authorShown(fromHost, true)).toBe("You");
    expect(authorShown(fromHost, false)).toBe("Maria");
  });

  it("is a guest's name everywhere, even one that is the host's name too", () => {
    expect(authorShown(fromGuest, true)).toBe("Maria");
    expect(authorShown(fromGuest, false)).toBe("Maria");
  });
});
