import { useState } from "react";

/** Copies `text` to the clipboard, and says so for a moment. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    void navigator.clipboard.writeText(text).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      },
      () => setCopied(false),
    );
  return (
    <button type="button" onClick={copy}>
      {copied ? "Copied" : label}
    </button>
  );
}
