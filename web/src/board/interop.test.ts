/** The web app's yjs reads the updates pycrdt made (tests/vectors/board/py_*), and ours read back. */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
// The checker is shared with the Python side (check.mjs); it takes yjs as a parameter.
import { checkVector } from "../../../tests/vectors/board/interop.mjs";
import { fromBase64, readItems } from "./model";

const VECTORS = join(dirname(fileURLToPath(import.meta.url)), "../../../tests/vectors/board");
const pyVectors = readdirSync(VECTORS).filter((name) => name.startsWith("py_") && name.endsWith(".json"));

describe("pycrdt-made board vectors in the web app's yjs", () => {
  it("exist", () => expect(pyVectors.length).toBeGreaterThanOrEqual(8));

  for (const name of pyVectors) {
    it(name, () => {
      const vector = JSON.parse(readFileSync(join(VECTORS, name), "utf-8"));
      expect(checkVector(Y, vector)).toEqual([]);
      // And the canvas's own reader accepts every item pycrdt wrote.
      const doc = new Y.Doc();
      Y.applyUpdate(doc, fromBase64(vector.update));
      expect(readItems(doc.getMap("items")).map((item) => item.id).sort()).toEqual(
        Object.keys(vector.expected)
          .filter((id) => {
            const item = vector.expected[id];
            return item.kind !== "arrow" || (item.from in vector.expected && item.to in vector.expected);
          })
          .sort(),
      );
    });
  }
});
