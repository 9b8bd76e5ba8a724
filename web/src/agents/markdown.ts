import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";
import { isImageSrc } from "../board/values";

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
      // A task list's box is a mark to read, not a form control.
      checkbox({ checked }: Tokens.Checkbox): string {
        return checked ? "☑ " : "☐ ";
      },
    },
  });
}

/**
 * What agent text may become: the elements markdown makes, and nothing that loads, plays, embeds,
 * submits or styles (no `<img>` from elsewhere, media, frames, forms, `<style>`, `<link>`, SVG).
 */
const TAGS = [
  "a", "b", "blockquote", "br", "button", "code", "del", "details", "div", "em", "h1", "h2", "h3", "h4", "h5",
  "h6", "hr", "i", "img", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong",
  "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
];
/** No `style`, `srcset`, `id` or `name` (they clobber the page's globals), and `src` only as checked below. */
const ATTRIBUTES = ["href", "title", "alt", "src", "class", "type", "data-copy-code", "align", "start", "colspan", "rowspan", "open"];
/** Classes of the code blocks' markup (ours and highlight.js's): an agent's own would dress its text as the page's. */
const CLASS = /^(?:hljs(?:-[\w-]+)?|[a-z]+_+|language-[\w-]+|agent-code|agent-code-language|agent-copy)$/;
const MEDIA: Record<string, string> = { img: "Image", input: "Image", video: "Video", audio: "Audio" };

/** How a picture or a clip the page will not load reads instead: what it is, its description, where it is. */
export function mediaWords(what: string, description: string, address: string): string {
  const named = description.trim() ? `${what} “${description.trim()}”` : what;
  let from = "";
  try {
    const url = new URL(address, "http://relative.invalid");
    if (url.host && url.hostname !== "relative.invalid") from = ` from ${url.host}`;
  } catch {
    // Not an address at all: the words say what it was without one.
  }
  return `${named}${from} (not loaded)`;
}

/** An address a person may open from a link: the web's, or the page's own; nothing that runs. */
function openable(address: string): string | null {
  try {
    const url = new URL(address, window.location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A picture or clip from elsewhere, as a link to it in words; what is held in the text itself stays a picture. */
function replaceMedia(node: Element, tag: string): void {
  const what = MEDIA[tag];
  if (what === undefined || (tag === "input" && node.getAttribute("type")?.toLowerCase() !== "image")) return;
  const address = node.getAttribute("src") ?? node.querySelector("source[src]")?.getAttribute("src") ?? node.getAttribute("poster") ?? "";
  if (tag === "img" && isImageSrc(address)) return;
  const document = node.ownerDocument;
  const target = openable(address);
  const words = mediaWords(what, node.getAttribute("alt") ?? node.getAttribute("title") ?? "", address);
  const link = document.createElement(target ? "a" : "span");
  link.textContent = words;
  if (target) {
    link.setAttribute("href", target);
    link.setAttribute("title", target);
  }
  // Put after the element, which DOMPurify then finds gone: it walks on to what follows, the link.
  node.after(link);
  node.remove();
}

const purify = DOMPurify(window);
purify.addHook("uponSanitizeElement", (node, data) => {
  if (node.nodeType === Node.ELEMENT_NODE) replaceMedia(node as Element, data.tagName);
});
purify.addHook("uponSanitizeAttribute", (_node, data) => {
  if (data.attrName === "class") data.attrValue = data.attrValue.split(/\s+/).filter((name) => CLASS.test(name)).join(" ");
  if (data.attrName === "src" && !isImageSrc(data.attrValue)) data.keepAttr = false;
});
purify.addHook("afterSanitizeAttributes", (node) => {
  // A link opens beside the room, never in place of it, and tells the other site nothing.
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** Agent HTML with only what `TAGS` and `ATTRIBUTES` allow, and media from elsewhere as links. */
export function sanitise(html: string): string {
  return purify.sanitize(html, { ALLOWED_TAGS: TAGS, ALLOWED_ATTR: ATTRIBUTES, ALLOW_DATA_ATTR: false });
}

const plain = markedWith(null);
let coloured: { highlight: Highlight; marked: Marked } | null = null;

/**
 * Agent text as safe HTML: markdown by marked, then everything active stripped by DOMPurify, and
 * nothing left that fetches (adr/0028). Code blocks get a copy button (`data-copy-code`) and,
 * given `highlight`, colours.
 */
export function renderMarkdown(text: string, highlight: Highlight | null = null): string {
  let marked = plain;
  if (highlight) {
    if (coloured?.highlight !== highlight) coloured = { highlight, marked: markedWith(highlight) };
    marked = coloured.marked;
  }
  return sanitise(marked.parse(text, { async: false }));
}

/** Whether the text holds a fenced code block (worth loading the highlighter for). */
export function hasCode(text: string): boolean {
  return text.includes("```") || text.includes("~~~");
}
