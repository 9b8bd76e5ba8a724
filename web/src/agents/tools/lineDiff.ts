/**
 * A unified diff of two texts, line by line (Myers' algorithm), for an edit's tool content: ACP
 * sends the file before and after, not a patch.
 */

export interface DiffRow {
  kind: "same" | "added" | "removed";
  text: string;
  /** The line's number in the old text (null for an added line) and in the new (null for a removed one). */
  oldLine: number | null;
  newLine: number | null;
}

/** A run of unchanged lines left out between hunks. */
export interface DiffGap {
  kind: "gap";
  lines: number;
}

/** Above this many differing lines the comparison stops: the edit is shown as the whole old text out, the new in. */
const MAX_EDITS = 1000;
const CONTEXT = 3;

function split(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Every line of both texts, in order, each marked same, removed or added. */
export function diffLines(oldText: string | null, newText: string): DiffRow[] {
  const a = split(oldText ?? "");
  const b = split(newText);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) [endA, endB] = [endA - 1, endB - 1];
  const middle = editScript(a.slice(start, endA), b.slice(start, endB));
  const rows: DiffRow[] = [];
  let [i, j] = [0, 0];
  const same = (count: number) => {
    for (let k = 0; k < count; k++, i++, j++) rows.push({ kind: "same", text: a[i], oldLine: i + 1, newLine: j + 1 });
  };
  same(start);
  for (const op of middle) {
    if (op === "=") same(1);
    else if (op === "-") rows.push({ kind: "removed", text: a[i], oldLine: ++i, newLine: null });
    else rows.push({ kind: "added", text: b[j], oldLine: null, newLine: ++j });
  }
  same(a.length - endA);
  return rows;
}

/** The shortest edit script from `a` to `b` as "=", "-", "+" steps, or all of `a` out then all of `b` in past MAX_EDITS. */
function editScript(a: string[], b: string[]): string[] {
  const [n, m] = [a.length, b.length];
  const offset = MAX_EDITS + 1;
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(n + m, MAX_EDITS); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) [x, y] = [x + 1, y + 1];
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, n, m);
    }
  }
  return [...Array<string>(n).fill("-"), ...Array<string>(m).fill("+")];
}

function backtrack(trace: Int32Array[], last: number, n: number, m: number): string[] {
  const ops: string[] = [];
  let [x, y] = [n, m];
  for (let d = last; d > 0; d--) {
    // trace[d] holds v for k in [-d-1, d+1] as it was before step d.
    const at = (k: number) => trace[d][k + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push("=");
      [x, y] = [x - 1, y - 1];
    }
    ops.push(down ? "+" : "-");
    [x, y] = [prevX, prevY];
  }
  while (x > 0 && y > 0) {
    ops.push("=");
    [x, y] = [x - 1, y - 1];
  }
  return ops.reverse();
}

/** The changed rows with `CONTEXT` unchanged lines around each change; longer unchanged runs become gaps. */
export function hunks(rows: readonly DiffRow[]): (DiffRow | DiffGap)[] {
  const near = new Uint8Array(rows.length);
  rows.forEach((row, index) => {
    if (row.kind === "same") return;
    for (let k = Math.max(0, index - CONTEXT); k <= Math.min(rows.length - 1, index + CONTEXT); k++) near[k] = 1;
  });
  const out: (DiffRow | DiffGap)[] = [];
  let gap = 0;
  rows.forEach((row, index) => {
    if (near[index]) {
      if (gap) out.push({ kind: "gap", lines: gap });
      gap = 0;
      out.push(row);
    } else gap++;
  });
  if (gap && out.length) out.push({ kind: "gap", lines: gap });
  return out;
}

/** Lines added and removed, for the row's summary. */
export function diffStat(rows: readonly DiffRow[]): { added: number; removed: number } {
  let [added, removed] = [0, 0];
  for (const row of rows) {
    if (row.kind === "added") added++;
    else if (row.kind === "removed") removed++;
  }
  return { added, removed };
}
