import { visiblePieces } from "./visibleText";

/** A guest's text with whatever would act instead of show (controls, bidi overrides) escaped. */
export function Visible({ text }: { text: string }) {
  return (
    <>
      {visiblePieces(text).map((piece, i) =>
        piece.escaped ? (
          <span key={i} className="escaped" title="an invisible or control character">
            {piece.text}
          </span>
        ) : (
          piece.text
        ),
      )}
    </>
  );
}
