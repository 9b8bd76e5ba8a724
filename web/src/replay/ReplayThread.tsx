import type { Thread } from "../protocol.gen";

/** A thread as far as it had gone: who asked what, what the agent said, its tools and permissions, in words. */
export function ReplayThread({ title, thread }: { title: string; thread: Thread | null }) {
  const items = thread?.items ?? [];
  return (
    <section className="replay-thread" aria-label={title} data-testid="replay-thread">
      <h3>
        {title} <span className="replay-muted">— {thread ? statusWords[thread.status] : "not started yet"}</span>
      </h3>
      <ol>
        {items.map((item) => (
          <li key={`${item.type}-${item.seq}`} className={`replay-thread-${item.type}`}>
            {item.type === "user" && (
              <>
                <strong>{item.author ?? "Someone"}:</strong> {item.asWritten ?? item.text}
              </>
            )}
            {(item.type === "message" || item.type === "thought") && item.text}
            {item.type === "tool" && `${item.title || "A tool"} (${item.status})`}
            {item.type === "permission" &&
              `${item.title || "A permission"}: ${item.resolution ? (item.resolution.answer ?? "answered") : "waiting for the host"}`}
            {item.type === "notice" && item.text}
            {item.type === "turn-end" && (item.error ? `The turn failed: ${item.error}` : "The turn ended.")}
          </li>
        ))}
      </ol>
    </section>
  );
}

const statusWords: Record<Thread["status"], string> = {
  idle: "idle",
  running: "working",
  waiting: "waiting for an answer",
};
