// The board's geometry in the page's terms: cell names, the six directions, and the moves
// that the page needs to understand without asking the server (to animate a move given in
// notation, to tell whether selected marbles stand in a line, to explain an illegal click).
//
// A cell name is a row letter (a = Black's side, at the bottom) and a diagonal number, as in
// the engine: a step in direction E is (row, diagonal + 1), NE (row + 1, diagonal + 1), ...

const ROW_HEIGHT = Math.sqrt(3) / 2;

// [row step, diagonal step, x step, y step]: y grows downwards in SVG, rows grow upwards.
export const DIRECTIONS = {
  E: [0, 1, 1, 0],
  NE: [1, 1, 0.5, -ROW_HEIGHT],
  NW: [1, 0, -0.5, -ROW_HEIGHT],
  W: [0, -1, -1, 0],
  SW: [-1, -1, -0.5, ROW_HEIGHT],
  SE: [-1, 0, 0.5, ROW_HEIGHT],
};

export function parseCell(name) {
  return { row: name.charCodeAt(0) - 97, diag: Number(name.slice(1)) - 1 };
}

export function cellName(row, diag) {
  return `${String.fromCharCode(97 + row)}${diag + 1}`;
}

/** The cell one step from `name` in `direction` (it may be off the board). */
export function step(name, direction) {
  const { row, diag } = parseCell(name);
  const [dr, dd] = DIRECTIONS[direction];
  return cellName(row + dr, diag + dd);
}

/** The direction of the single step from `from` to `to`, or null when they are not neighbours. */
export function directionBetween(from, to) {
  const a = parseCell(from);
  const b = parseCell(to);
  for (const [name, [dr, dd]] of Object.entries(DIRECTIONS)) {
    if (b.row - a.row === dr && b.diag - a.diag === dd) return name;
  }
  return null;
}

/** Cell names sorted along the board (row, then diagonal): along any line this is line order. */
export function sortCells(names) {
  return [...names].sort((p, q) => {
    const a = parseCell(p);
    const b = parseCell(q);
    return a.row - b.row || a.diag - b.diag;
  });
}

/** The direction that `names` (in line order) run in, null when they are not neighbours in a line. */
export function lineDirection(names) {
  const sorted = sortCells(names);
  if (sorted.length < 2) return null;
  const direction = directionBetween(sorted[0], sorted[1]);
  for (let i = 1; i < sorted.length - 1; i++) {
    if (directionBetween(sorted[i], sorted[i + 1]) !== direction) return null;
  }
  return direction;
}

/** Whether 1 to 3 cells stand next to each other in one straight line. */
export function isLine(names) {
  return names.length === 1 || (names.length <= 3 && lineDirection(names) !== null);
}

/** The cell between two cells two steps apart on a line, or null. */
export function cellBetween(a, b) {
  const p = parseCell(a);
  const q = parseCell(b);
  if ((q.row - p.row) % 2 || (q.diag - p.diag) % 2) return null;
  const middle = cellName((p.row + q.row) / 2, (p.diag + q.diag) / 2);
  return directionBetween(a, middle) && directionBetween(middle, b) === directionBetween(a, middle) ? middle : null;
}

export function axisOf(direction) {
  return { E: "E", W: "E", NE: "NE", SW: "NE", NW: "NW", SE: "NW" }[direction];
}

/** Map from cell name to cell object for a Board of the API. */
export function cellIndex(board) {
  return new Map(board.cells.map((cell) => [cell.name, cell]));
}

/** Centre of a cell in board units; off-board cells get a point outside, found by stepping. */
export function centreOf(cells, name, from = null, direction = null) {
  const cell = cells.get(name);
  if (cell) return { x: cell.x, y: cell.y };
  const origin = cells.get(from);
  const [, , dx, dy] = DIRECTIONS[direction];
  return { x: origin.x + dx, y: origin.y + dy };
}

const CELL_PATTERN = /[a-z]\d+/g;

/**
 * What a move in notation does on `board` (the position before it): the mover's marbles,
 * the direction, where they go, and the opposing marbles pushed (the last one off the board
 * when `pushOff`). Inline: "a1b2" (trailing marble, where it goes); broadside: "c3c5d4" (both
 * ends, where the first goes). The move is taken to be legal: the server said so.
 */
export function describeMove(board, notation) {
  const cells = cellIndex(board);
  const names = notation.match(CELL_PATTERN) || [];
  const mover = board.to_move;
  const colourAt = (name) => cells.get(name)?.marble ?? (cells.has(name) ? null : "off");
  if (names.length === 2) {
    const direction = directionBetween(names[0], names[1]);
    if (!direction) return null;
    const marbles = [];
    let cursor = names[0];
    while (marbles.length < 3 && colourAt(cursor) === mover) {
      marbles.push(cursor);
      cursor = step(cursor, direction);
    }
    const pushed = [];
    while (colourAt(cursor) !== null && colourAt(cursor) !== "off" && colourAt(cursor) !== mover) {
      pushed.push(cursor);
      cursor = step(cursor, direction);
    }
    const pushOff = pushed.length > 0 && colourAt(cursor) === "off";
    return { marbles, direction, destinations: marbles.map((m) => step(m, direction)), pushed, pushOff, broadside: false };
  }
  if (names.length === 3) {
    const [first, last, target] = names;
    const direction = directionBetween(first, target);
    if (!direction) return null;
    const middle = directionBetween(first, last) ? null : cellBetween(first, last);
    const marbles = sortCells(middle ? [first, middle, last] : [first, last]);
    return { marbles, direction, destinations: marbles.map((m) => step(m, direction)), pushed: [], pushOff: false, broadside: true };
  }
  return null;
}

/**
 * The cells a move touched, to mark the last move on the board: where its marbles stand now
 * (`to`) and the cells they left (`from`). Exact with the board before the move; from the
 * board after it alone, an inline move shows its trailing marble only (a line of marbles
 * cannot be told from a marble that happened to stand in front of it).
 */
export function movedCells(after, notation, before = null) {
  const move = before && describeMove(before, notation);
  if (move) {
    return { from: move.marbles.filter((m) => !move.destinations.includes(m)), to: move.destinations };
  }
  const names = notation.match(CELL_PATTERN) || [];
  if (names.length === 2) return { from: [names[0]], to: [names[1]] };
  if (names.length === 3) {
    const direction = directionBetween(names[0], names[2]);
    const middle = directionBetween(names[0], names[1]) ? null : cellBetween(names[0], names[1]);
    if (!direction) return { from: [], to: [] };
    const marbles = middle ? [names[0], middle, names[1]] : [names[0], names[1]];
    return { from: marbles, to: marbles.map((m) => step(m, direction)) };
  }
  return { from: [], to: [] };
}
