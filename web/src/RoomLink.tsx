import { useState } from "react";
import type { Welcome } from "./protocol.gen";

export function roomLink(welcome: Pick<Welcome, "roomId" | "key" | "hostPublicKey">, base: string): string {
  return `${base}#room=${welcome.roomId}&key=${welcome.key}&host=${welcome.hostPublicKey}`;
}

export function RoomLink({ welcome }: { welcome: Welcome }) {
  const link = roomLink(welcome, `${location.origin}/`);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(link);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <section className="room-link" aria-labelledby="room-link-heading">
      <h2 id="room-link-heading">Room link</h2>
      <p>Guests who open this link can join the room.</p>
      <div className="copy-row">
        <input
          readOnly
          aria-label="Room link"
          value={link}
          data-testid="room-link"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
    </section>
  );
}
