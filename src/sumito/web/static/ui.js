// Small page helpers shared by the views: the message line, the move list, the clipboard.

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const capitalised = (word) => word.charAt(0).toUpperCase() + word.slice(1);

export const other = (colour) => (colour === "black" ? "white" : "black");

/** A message line (role=status): `tone` is "info", "error" or "good". */
export function say(element, text, tone = "info") {
  element.textContent = text || "";
  element.dataset.tone = tone;
}

/**
 * The moves in notation as numbered pairs ("1. c3d3 g7f7"); `firstColour` is the side that made
 * the first move. `current` (a ply) is highlighted; with `onPick`, each move is a button that
 * goes to the position after it; `annotate(ply)` may return `{className, title}` for a move (a mistake).
 * The list scrolls to the current move within itself, never the page (on a phone the list is
 * below the board, and scrolling the page after every move took the board away).
 */
export function renderMoveList(list, moves, { firstColour = "black", current = moves.length, onPick = null, annotate = null } = {}) {
  list.textContent = "";
  const offset = firstColour === "white" ? 1 : 0; // a game from a position with White to move
  for (let i = -offset; i < moves.length; i += 2) {
    const item = document.createElement("li");
    const number = document.createElement("span");
    number.className = "move-number";
    number.textContent = `${(i + offset) / 2 + 1}.`;
    item.append(number);
    for (const ply of [i + 1, i + 2]) {
      if (ply > moves.length) break;
      const cell = moveCell(ply, ply >= 1 ? moves[ply - 1] : "…", current, onPick);
      const note = annotate && ply >= 1 ? annotate(ply) : null;
      if (note) {
        cell.classList.add(note.className);
        cell.title = note.title;
        if (note.title) cell.setAttribute("aria-description", note.title);
      }
      item.append(cell);
    }
    list.append(item);
  }
  const item = list.querySelector(".current");
  if (item) scrollWithin(list, item);
}

/** Scroll `container` (only it) so that `item` shows. */
export function scrollWithin(container, item) {
  const outer = container.getBoundingClientRect();
  const inner = item.getBoundingClientRect();
  if (inner.top < outer.top) container.scrollTop += inner.top - outer.top;
  else if (inner.bottom > outer.bottom) container.scrollTop += inner.bottom - outer.bottom;
}

function moveCell(ply, text, current, onPick) {
  const cell = document.createElement(onPick && ply >= 1 ? "button" : "span");
  cell.className = "move";
  cell.textContent = text;
  if (ply < 1) return cell;
  cell.dataset.ply = String(ply);
  if (ply === current) {
    cell.classList.add("current");
    cell.setAttribute("aria-current", "step");
  }
  if (cell.tagName === "BUTTON") {
    cell.type = "button";
    cell.addEventListener("click", () => onPick(ply));
  }
  return cell;
}

/** Copy `text`; the page may be served over plain HTTP from another machine, without the Clipboard API. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    return done;
  }
}

/** Describe a finished game's outcome in a sentence. */
export function outcomeText(outcome, players = {}) {
  if (!outcome) return "";
  const reasons = {
    "push-off": "by pushing off marbles",
    resignation: "by resignation",
    time: "on time",
    adjudication: "by adjudication",
    "no-moves": "as the other side has no legal move",
  };
  const draws = {
    repetition: "Drawn by repetition",
    "ply-cap": "Drawn: the move limit was reached",
    "no-capture": "Drawn: too long without a push-off",
    "no-moves": "Drawn: no legal move",
    agreement: "Drawn by agreement",
  };
  if (!outcome.winner) return `${draws[outcome.reason] || `Drawn (${outcome.reason})`} · ${outcome.result}`;
  const name = players[outcome.winner] ? ` (${players[outcome.winner]})` : "";
  return `${capitalised(outcome.winner)}${name} wins ${reasons[outcome.reason] || `(${outcome.reason})`} · ${outcome.result}`;
}
