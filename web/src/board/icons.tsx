/** The toolbar's icons: 24-unit line drawings in the text colour (each button also has a label). */

const PATHS = {
  select: "M6 3l12 9-5.5 1.2L15 19l-2.6 1.2-2.5-5.8L6 18z",
  note: "M4 4h16v10l-6 6H4z M14 20v-6h6",
  text: "M5 6V4h14v2 M12 4v16 M9 20h6",
  rect: "M4 6h16v12H4z",
  ellipse: "M12 5c5 0 9 3.1 9 7s-4 7-9 7-9-3.1-9-7 4-7 9-7z",
  arrow: "M5 19L19 5 M10 5h9v9",
  pen: "M4 20l1-4L16 5l3 3L8 19z M14 7l3 3",
  frame: "M7 3v18 M17 3v18 M3 7h18 M3 17h18",
  undo: "M9 14L4 9l5-5 M4 9h10a6 6 0 010 12h-3",
  redo: "M15 14l5-5-5-5 M20 9H10a6 6 0 000 12h3",
  duplicate: "M9 9h11v11H9z M5 15H4V4h11v1",
  front: "M5 3h14 M12 21V8 M7 13l5-5 5 5",
  back: "M5 21h14 M12 3v13 M7 11l5 5 5-5",
  delete: "M4 7h16 M10 11v6 M14 11v6 M6 7l1 13h10l1-13 M9 7V4h6v3",
  minus: "M5 12h14",
  plus: "M5 12h14 M12 5v14",
  fit: "M4 9V4h5 M15 4h5v5 M20 15v5h-5 M9 20H4v-5",
  more: "M5 12h.01 M12 12h.01 M19 12h.01",
  group: "M3 3h6 M15 3h6v6 M21 15v6h-6 M9 21H3v-6 M3 9V3 M7 7h6v6H7z M11 11h6v6h-6z",
  lock: "M6 11h12v9H6z M9 11V8a3 3 0 016 0v3",
  align: "M4 3v18 M8 7h10v4H8z M8 14h7v4H8z",
  export: "M12 3v12 M7 10l5 5 5-5 M5 21h14",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: IconName }) {
  return (
    <svg className="board-icon" width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
