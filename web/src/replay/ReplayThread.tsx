import type { Thread } from "../protocol.gen";
import { itemWords, STATUS_WORDS } from "./threadWords";

/** A thread as far as it had gone: who asked what, what the agent said, its tools and permissions, in words. */
export function ReplayThread({ title, thread }: { title: string; thread: Thread | null }) {
  const items = thread?.items ?? [];
  return (
    <section className="replay-thread" aria-label={title} data-testid="replay-thread">
      <h3>
        {title} <span className="replay-muted">— {thread ? STATUS_WORDS[thread.status] : "not started yet"}</span>
      </h3>
      <ol>
        {items.map((item) => {
          const words = itemWords(item);
          return (
            words && (
              <li key={`${item.type}-${item.seq}`} className={`replay-thread-${item.type}`}>
                {words.author && <strong>{words.author}:</strong>} {words.text}
              </li>
            )
          );
        })}
      </ol>
    </section>
  );
}
