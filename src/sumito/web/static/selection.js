// What a click on a cell means while the player chooses a move. Pure functions of the board,
// the legal moves (from GET /api/games/{id}/legal), the marbles selected so far and the cell
// clicked; the play view applies the answer. Every click that does not select or play says
// why, in the game's words: a player is never left wondering why nothing happened.

import {
  axisOf, cellBetween, cellIndex, directionBetween, DIRECTIONS, isLine, lineDirection, sortCells, step,
} from "./geometry.js";

const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));
const listCells = (names) => sortCells(names).join(", ");
const marblesWord = (n) => (n === 1 ? "marble" : "marbles");

/** The legal moves of exactly the selected marbles. */
export function movesOf(legal, selection) {
  return selection.length ? legal.filter((move) => sameSet(move.marbles, selection)) : [];
}

/** Cell → the moves of the selection that put a marble there (cells of the selection left out). */
export function destinationsOf(moves, selection) {
  const targets = new Map();
  for (const move of moves) {
    for (const cell of move.destinations) {
      if (selection.includes(cell)) continue;
      if (!targets.has(cell)) targets.set(cell, []);
      targets.get(cell).push(move);
    }
  }
  return targets;
}

/**
 * The move a click on `target` plays when several moves of the selection reach it (two
 * broadside directions overlap): the one pointing from the middle of the selection towards
 * the clicked cell, and on a tie the one stepping from the marble selected last to it.
 */
export function pickMove(candidates, board, selection, target, anchor) {
  if (candidates.length === 1) return candidates[0];
  const cells = cellIndex(board);
  const centre = selection.reduce(
    (sum, name) => ({ x: sum.x + cells.get(name).x / selection.length, y: sum.y + cells.get(name).y / selection.length }),
    { x: 0, y: 0 },
  );
  const towards = { x: cells.get(target).x - centre.x, y: cells.get(target).y - centre.y };
  const score = (move) => towards.x * DIRECTIONS[move.direction][2] + towards.y * DIRECTIONS[move.direction][3];
  const ranked = [...candidates].sort((a, b) => score(b) - score(a));
  if (score(ranked[0]) - score(ranked[1]) > 1e-6) return ranked[0];
  const fromAnchor = anchor && directionBetween(anchor, target);
  return candidates.find((move) => move.direction === fromAnchor) || null;
}

/**
 * The answer to a click on cell `name` when it is the player's turn:
 * `{selection, anchor, move, message, tone}`: the new selection, the marble selected last,
 * the legal move to play (or null) and a message for the message line (or null).
 */
export function clickCell({ board, legal, selection, anchor }, name) {
  const cells = cellIndex(board);
  const mover = board.to_move;
  const colour = cells.get(name)?.marble ?? null;
  const keep = (message, tone = "error") => ({ selection, anchor, move: null, message, tone });

  // A highlighted destination plays its move (an opposing marble there is pushed).
  const targets = destinationsOf(movesOf(legal, selection), selection);
  if (targets.has(name)) {
    const move = pickMove(targets.get(name), board, selection, name, anchor);
    if (move) return { selection: [], anchor: null, move, message: null, tone: "info" };
    const options = targets.get(name).map((m) => m.notation).join(" or ");
    return keep(`Two moves put a marble on ${name} (${options}): click a cell that only one of them reaches.`, "info");
  }

  if (selection.includes(name)) return deselect(selection, name);
  if (colour === mover) return extend({ board, legal, selection }, name);
  if (colour !== null) {
    if (selection.length) return keep(explainTarget(board, selection, name));
    return keep(`${name} is a ${colour} marble, and you play ${mover}: select your own marbles.`);
  }
  if (!selection.length) {
    return keep(`${name} is empty. First select one to three of your ${mover} marbles, then click where they go.`, "info");
  }
  return keep(explainTarget(board, selection, name));
}

function deselect(selection, name) {
  const rest = selection.filter((cell) => cell !== name);
  // Taking the middle marble out of three leaves two that do not touch: start again.
  return isLine(rest)
    ? { selection: rest, anchor: rest.at(-1) ?? null, move: null, message: null, tone: "info" }
    : { selection: [], anchor: null, move: null, message: "Selection cleared.", tone: "info" };
}

function extend({ board, legal, selection }, name) {
  const cells = cellIndex(board);
  let next = [...selection, name];
  // Clicking the far end of a line of three selects the marble between as well.
  if (selection.length === 1) {
    const middle = cellBetween(selection[0], name);
    if (middle && cells.get(middle)?.marble === board.to_move) next = [selection[0], middle, name];
  }
  if (next.length > 3) {
    return alone(name, `At most three marbles move together, so ${name} is now selected alone.`);
  }
  if (!isLine(next)) {
    return alone(name, `${name} is not in a line with ${listCells(selection)}, so it is now selected alone.`);
  }
  const message = movesOf(legal, next).length ? null : `${listCells(next)}: no legal move for these ${marblesWord(next.length)}.`;
  return { selection: next, anchor: name, move: null, message, tone: "info" };
}

function alone(name, message) {
  return { selection: [name], anchor: name, move: null, message, tone: "info" };
}

/** Why no legal move of the selected marbles reaches `target`, as precisely as the board tells. */
export function explainTarget(board, selection, target) {
  const cells = cellIndex(board);
  const mover = board.to_move;
  const colourAt = (cell) => (cells.has(cell) ? cells.get(cell).marble : "off");
  const selected = listCells(selection);
  const direction = selection.map((m) => directionBetween(m, target)).find(Boolean);
  if (!direction) {
    return `No legal move that way: ${target} is not next to ${selected}, and marbles move one cell at a time.`;
  }
  const line = selection.length > 1 ? lineDirection(selection) : direction;
  if (axisOf(line) === axisOf(direction)) {
    const pushed = [];
    let cursor = target;
    while (colourAt(cursor) !== null && colourAt(cursor) !== "off" && colourAt(cursor) !== mover) {
      pushed.push(cursor);
      cursor = step(cursor, direction);
    }
    const n = selection.length;
    if (pushed.length >= n) {
      return `No legal move that way: ${n} ${marblesWord(n)} cannot push ${pushed.length} ` +
        "(a push needs more marbles than it moves: 2 push 1, 3 push 1 or 2).";
    }
    if (pushed.length && colourAt(cursor) === mover) {
      return `No legal move that way: the push is blocked by your own marble on ${cursor}.`;
    }
  } else {
    if (board.inline_only) return "No legal move that way: this game allows inline moves only (no broadside moves).";
    const ahead = selection.map((m) => step(m, direction));
    if (ahead.some((cell) => colourAt(cell) === "off")) {
      return "No legal move that way: a marble would leave the board, and nobody may move their own marble off.";
    }
    const taken = ahead.filter((cell) => colourAt(cell) !== null);
    if (taken.length) {
      const verb = taken.length === 1 ? "is" : "are";
      return `No legal move that way: a broadside move needs empty cells, and ${taken.join(", ")} ${verb} taken.`;
    }
  }
  return `No legal move takes ${selected} to ${target}.`;
}
