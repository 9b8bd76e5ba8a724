import { useEffect } from "react";
import { useRoom, useRoomStore } from "../roomClient";
import "./people.css";

const SHOWN_MS = 6000;

/** Who came or went: a short notice at every width, gone by itself after a few seconds. */
export function Arrivals() {
  const store = useRoomStore();
  const arrivals = useRoom((s) => s.arrivals);
  useEffect(() => {
    if (arrivals.length === 0) return;
    const oldest = arrivals[0].id;
    const timer = setTimeout(() => store.dismissArrival(oldest), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [arrivals, store]);
  if (arrivals.length === 0) return null;
  return (
    <div className="arrivals" data-testid="arrivals" role="status" aria-live="polite">
      <ul>
        {arrivals.map((arrival) => (
          <li key={arrival.id} data-testid="arrival">
            {arrival.text}
          </li>
        ))}
      </ul>
    </div>
  );
}
