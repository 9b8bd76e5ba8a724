import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";

/** Colours a code block: highlighted HTML (escaped by the highlighter), or null to show it plain. */
export type Highlight = (code: string, language: string | null) => string | null;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function markedWith(highlight: Highlight | null): Marked {
  return new Marked({
    gfm: true,
    breaks: true,
    renderer: {
      code({ text, lang }: Tokens.Code): string {
        const language = lang?.trim().split(/\s+/)[0] || null;
        const html = highlight?.(text, language) ?? escapeHtml(text);
        const label = language ? `<span class="agent-code-language">${escapeHtml(language)}</span>` : "";
        return (
          `<div class="agent-code">${label}<button type="button" class="agent-copy" data-copy-code>Copy code</button>` +
          `<pre><code class="hljs">${html}</code></pre></div>`
        );
      },
    },
  });
}

const plain = markedWith(null);
let coloured: { highlight: Highlight; marked: Marked } | null = null;

/**
 * Agent text as safe HTML: markdown by marked, then everything active stripped by DOMPurify. Code
 * blocks get a copy button (`data-copy-code`) and, given `highlight`, colours.
 */
export function renderMarkdown(text: string, highlight: Highlight | null = null): string {
  let marked = plain;
  if (highlight) {
    if (coloured?.highlight !== highlight) coloured = { highlight, marked: markedWith(highlight) };
    marked = coloured.marked;
  }
  const html = marked.parse(text, { async: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}

/** Whether the text holds a fenced code block (worth loading the highlighter for). */
export function hasCode(text: string): boolean {
  return text.includes("```") || text.includes("~~~");
}
