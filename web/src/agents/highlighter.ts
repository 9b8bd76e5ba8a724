import { useEffect, useState } from "react";

type Highlighter = typeof import("../files/highlight");

let loaded: Highlighter | null = null;
let loading: Promise<Highlighter> | null = null;

/**
 * The code highlighter (highlight.js and its languages), loaded the first time something in the
 * thread has code to colour: it stays out of the first load. Null until it has come.
 */
export function useHighlighter(wanted: boolean): Highlighter | null {
  const [highlighter, setHighlighter] = useState(loaded);
  useEffect(() => {
    if (!wanted || highlighter) return;
    let live = true;
    loading ??= import("../files/highlight").then((module) => (loaded = module));
    void loading.then((module) => live && setHighlighter(module));
    return () => {
      live = false;
    };
  }, [wanted, highlighter]);
  return highlighter;
}
