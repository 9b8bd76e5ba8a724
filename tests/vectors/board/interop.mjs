// Checks one board interop vector against yjs. Takes Y as a parameter so that this file imports
// nothing: check.mjs passes the yjs it finds, and the web app's vitest passes its own.

function decode(b64) {
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

function compare(path, got, want, mismatches) {
  if (typeof want === "number" && typeof got === "number") {
    if (got !== want) mismatches.push(`${path}: got ${got}, want ${want}`);
  } else if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) {
      mismatches.push(`${path}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      return;
    }
    want.forEach((value, i) => compare(`${path}[${i}]`, got[i], value, mismatches));
  } else if (want !== null && typeof want === "object") {
    if (got === null || typeof got !== "object" || Array.isArray(got)) {
      mismatches.push(`${path}: got ${JSON.stringify(got)}, want an object`);
      return;
    }
    for (const key of new Set([...Object.keys(got), ...Object.keys(want)])) {
      if (!(key in want)) mismatches.push(`${path}.${key}: unexpected ${JSON.stringify(got[key])}`);
      else if (!(key in got)) mismatches.push(`${path}.${key}: missing, want ${JSON.stringify(want[key])}`);
      else compare(`${path}.${key}`, got[key], want[key], mismatches);
    }
  } else if (got !== want) {
    mismatches.push(`${path}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

function applyAll(Y, updates, label, vector, mismatches) {
  const doc = new Y.Doc();
  try {
    for (const update of updates) Y.applyUpdate(doc, decode(update));
  } catch (error) {
    mismatches.push(`${vector.name} ${label}: yjs refused the update: ${error}`);
    return;
  }
  // Structs waiting for missing dependencies mean the update is incomplete, even if the JSON matches.
  if (doc.store.pendingStructs !== null || doc.store.pendingDs !== null) {
    mismatches.push(`${vector.name} ${label}: left pending structs or deletes`);
  }
  compare(`${vector.name} ${label} items`, doc.getMap("items").toJSON(), vector.expected, mismatches);
}

/** Returns the list of mismatches (empty when yjs gives the vector's expected items). */
export function checkVector(Y, vector) {
  const mismatches = [];
  applyAll(Y, [vector.update], "update", vector, mismatches);
  if (vector.updates) applyAll(Y, vector.updates, "updates", vector, mismatches);
  return mismatches;
}
