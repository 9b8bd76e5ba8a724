import { describe, expect, it } from "vitest";
import { answerWords, ruleWords, sizeWords } from "./requests";

const OPTIONS = [
  { optionId: "ok", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

describe("the words for permissions", () => {
  it("say the answer given, by whom, never an option id", () => {
    expect(answerWords({ optionId: "ok", by: "the host", answer: "always" }, OPTIONS)).toBe(
      "always allowed, for this session by the host",
    );
    expect(answerWords({ optionId: "ok", by: "Ada", answer: null }, OPTIONS)).toBe("allowed once by Ada");
    expect(answerWords({ optionId: "no", by: "rules", answer: null }, OPTIONS)).toBe("rejected by a permission rule");
    expect(answerWords({ optionId: null, by: null, answer: null }, OPTIONS)).toBe("cancelled");
  });

  it("name the rule an answer adds, its pattern read back as the text it matches", () => {
    expect(ruleWords({ permission: "edit", pattern: "notes/todo.txt" })).toBe("edits of notes/todo.txt");
    expect(ruleWords({ permission: "execute", pattern: "ls \\*.txt" })).toBe("the command ls *.txt");
    expect(ruleWords({ permission: "read", pattern: "*" })).toBe("every one of its reads");
  });

  it("give sizes as people read them", () => {
    expect([sizeWords(1), sizeWords(999), sizeWords(3400), sizeWords(2_500_000)]).toEqual([
      "1 byte",
      "999 bytes",
      "3.4 KB",
      "2.5 MB",
    ]);
  });
});
