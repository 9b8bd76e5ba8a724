import { useMemo } from "react";
import { GuestApp } from "./GuestApp";
import { roomLinkParams } from "./guestConnection";

/** What a room link opens: the guest page, or what is missing from a link cut short. */
export default function GuestPage() {
  const link = useMemo(() => roomLinkParams(), []);
  if (link) return <GuestApp link={link} />;
  return (
    <main className="notice">
      <h1>This room link is incomplete</h1>
      <p>It needs its room, key and host parts (after the <code>#</code>). Ask the host to send it again.</p>
    </main>
  );
}
