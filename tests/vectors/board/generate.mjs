// Writes js_*.json: Yjs updates made by the yjs npm package, with the board items they must give.
// Run: cd /tmp/yjsgen && npm install yjs && NODE_PATH=/tmp/yjsgen/node_modules node <this file>
// (or `node generate.mjs` from a folder whose node_modules has yjs). Schema: adr/0003-board-schema.md.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// createRequire honours NODE_PATH, which bare ESM imports do not.
const require = createRequire(import.meta.url);
const Y = require("yjs");
const here = dirname(fileURLToPath(import.meta.url));

function newDoc(clientID) {
  const doc = new Y.Doc();
  // Fixed client ids make the bytes, and the winner of concurrent writes, reproducible.
  doc.clientID = clientID;
  return doc;
}

function record(doc) {
  const updates = [];
  doc.on("update", (update) => updates.push(update));
  return updates;
}

function item(fields) {
  const map = new Y.Map();
  for (const [key, value] of Object.entries(fields)) map.set(key, value);
  return map;
}

function text(value) {
  const t = new Y.Text();
  t.insert(0, value);
  return t;
}

function write(name, doc, updates, description) {
  const b64 = (bytes) => Buffer.from(bytes).toString("base64");
  const vector = {
    name,
    description,
    update: b64(Y.encodeStateAsUpdate(doc)),
    updates: updates.map(b64),
    expected: doc.getMap("items").toJSON(),
  };
  writeFileSync(join(here, `js_${name}.json`), JSON.stringify(vector, null, 2) + "\n");
}

function note(id, x, y, body, color = "#ffd43b") {
  return [id, item({ kind: "note", x, y, w: 200, h: 200, z: 1, color, text: text(body) })];
}

{
  const doc = newDoc(101);
  const updates = record(doc);
  const items = doc.getMap("items");
  doc.transact(() => items.set(...note("n1", 0, 0, "Grüße 😀 世界 — ok")));
  const t = items.get("n1").get("text");
  // UTF-16 offsets: "Grüße " is 6 units, the emoji 2, so 8 is just after it.
  t.insert(8, "✨X");
  // Delete "世" (after the emoji and the inserted text: 6 + 2 + 2 + 1 = 11).
  t.delete(11, 1);
  doc.transact(() => items.set(...note("n2", 300, 0, "日本語のメモ 🎉👩‍👩‍👧", "#a9e34b")));
  write("note_unicode", doc, updates, "notes with emoji and CJK, edited in the middle after an emoji");
}

{
  const doc = newDoc(102);
  const updates = record(doc);
  const items = doc.getMap("items");
  doc.transact(() => {
    items.set("t1", item({ kind: "text", x: -40.5, y: 12.25, w: 240, h: 60, z: 3, color: "#1e1e1e", text: text("Plain text") }));
    items.set("s1", item({ kind: "shape", shape: "rect", x: 10, y: 20, w: 160, h: 100, z: 1, color: "#4dabf7", text: text("Box") }));
    items.set("s2", item({ kind: "shape", shape: "ellipse", x: 200, y: 20, w: 120, h: 120, z: 2, color: "red", text: text("") }));
  });
  items.get("s2").get("text").insert(0, "Ellipse ○");
  write("text_and_shapes", doc, updates, "a text item, a rect and an ellipse with labels");
}

{
  const doc = newDoc(103);
  const updates = record(doc);
  const items = doc.getMap("items");
  doc.transact(() => {
    items.set(...note("a", 0, 0, "from"));
    items.set(...note("b", 400, 0, "to"));
  });
  doc.transact(() => items.set("ar", item({ kind: "arrow", from: "a", to: "b", x: 0, y: 0, w: 600, h: 200, z: 2, color: "#495057" })));
  write("arrow", doc, updates, "two notes connected by an arrow");
}

{
  const doc = newDoc(104);
  const updates = record(doc);
  const items = doc.getMap("items");
  doc.transact(() => {
    const points = new Y.Array();
    points.push([0, 0, 1.5, 2.25, 10, -3, 20.125, 40]);
    items.set("st", item({ kind: "stroke", x: 50, y: 60, w: 21, h: 43, z: 1, color: "#000000", points }));
  });
  // A moved stroke changes its position, never its points.
  doc.transact(() => {
    items.get("st").set("x", 70);
    items.get("st").set("y", 80.5);
  });
  write("stroke", doc, updates, "a freehand stroke (flat points), moved once");
}

{
  const doc = newDoc(105);
  const updates = record(doc);
  const items = doc.getMap("items");
  doc.transact(() => {
    const holds = (type, ref) => item({ type, ref });
    items.set("f1", item({ kind: "frame", x: 0, y: 0, w: 640, h: 480, z: 1, color: "#868e96", title: "Claude", holds: holds("agent", "sess-1") }));
    items.set("f2", item({ kind: "frame", x: 700, y: 0, w: 640, h: 400, z: 2, color: "#868e96", title: "shell", holds: holds("terminal", "term-1") }));
    items.set("f3", item({ kind: "frame", x: 0, y: 520, w: 500, h: 600, z: 3, color: "#868e96", title: "README", holds: holds("file", "docs/README — 説明.md") }));
  });
  write("frames", doc, updates, "frames holding an agent session, a terminal and a file");
}

{
  const doc = newDoc(106);
  const updates = record(doc);
  const items = doc.getMap("items");
  doc.transact(() => {
    items.set(...note("a", 0, 0, "keep"));
    items.set(...note("b", 300, 0, "delete me"));
    items.set("ar", item({ kind: "arrow", from: "a", to: "b", x: 0, y: 0, w: 500, h: 200, z: 2, color: "#495057" }));
  });
  doc.transact(() => {
    items.delete("ar");
    items.delete("b");
  });
  items.get("a").get("text").delete(0, 2);
  write("delete", doc, updates, "a note and its arrow deleted, a text partly deleted");
}

{
  const doc = newDoc(107);
  const updates = record(doc);
  const items = doc.getMap("items");
  doc.transact(() => items.set(...note("n", 0, 0, "drag me")));
  // A drag: position set at a bounded rate, one small update each.
  for (let step = 1; step <= 10; step++) {
    doc.transact(() => {
      items.get("n").set("x", step * 12.5);
      items.get("n").set("y", step * 3);
    });
  }
  write("drag", doc, updates, "a note dragged: a sequence of position updates");
}

{
  const a = newDoc(1);
  const b = newDoc(2);
  const updates = record(a);
  const itemsA = a.getMap("items");
  a.transact(() => itemsA.set(...note("n", 0, 0, "shared 😀 text")));
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
  const itemsB = b.getMap("items");
  // Concurrent: both move the same note, both edit its text, each adds an item; a deletes one.
  a.transact(() => {
    itemsA.get("n").set("x", 100);
    itemsA.get("n").get("text").insert(0, "A:");
    itemsA.set(...note("fromA", 500, 0, "added by A"));
  });
  b.transact(() => {
    itemsB.get("n").set("x", 200);
    itemsB.get("n").set("y", 50);
    // After the emoji, in UTF-16 units: "shared " 7 + emoji 2.
    itemsB.get("n").get("text").insert(9, " B");
    itemsB.set(...note("fromB", 800, 0, "added by B 世界"));
  });
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)));
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)));
  a.transact(() => itemsA.delete("fromB"));
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)));
  const json = JSON.stringify;
  if (json(itemsA.toJSON()) !== json(itemsB.toJSON())) throw new Error("concurrent docs did not converge");
  write("concurrent", a, updates, "two clients' concurrent moves, text edits, adds and a delete, merged");
}
