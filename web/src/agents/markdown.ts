import DOMPurify from "dompurify";
import { marked } from "marked";

/** Agent text as safe HTML: markdown by marked, then everything active stripped by DOMPurify. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}
