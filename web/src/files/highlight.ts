import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import "./highlight.css";
import { languageFor } from "./tree";

const LANGUAGES = { bash, c, cpp, css, diff, go, ini, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Above this, highlighting would stall the page on every update: the text is shown plain. */
const MAX_HIGHLIGHT_CHARS = 200_000;

/** The file's text as highlighted HTML (highlight.js escapes the text), or null for plain text. */
export function highlightHtml(path: string, text: string): string | null {
  const language = languageFor(path);
  if (!language || text.length > MAX_HIGHLIGHT_CHARS) return null;
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}

/** A piece of code as highlighted HTML in a language named as a code fence names it ("py", "ts"…), or null. */
export function highlightIn(language: string | null, text: string): string | null {
  if (!language || !hljs.getLanguage(language) || text.length > MAX_HIGHLIGHT_CHARS) return null;
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}

/** The language of a file by its name, for a diff's lines. */
export { languageFor } from "./tree";
