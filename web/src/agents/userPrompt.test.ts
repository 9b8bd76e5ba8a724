import { describe, expect, it } from "vitest";
import { promptShown } from "./userPrompt";

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
