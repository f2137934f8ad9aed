// The board: an SVG hexagon drawn from the API's Board object, with the row letters and
// diagonal numbers along its edges, the lost-marble trays beside it, focusable cells for
// the keyboard, and the animation of a move (marbles sliding, pushed marbles shoved, a
// marble pushed off rolling out of the board and fading).
//
// The view knows nothing about rules or turns: it draws what it is given and reports which
// cell was activated (click, Enter or Space) or hovered/focused. Flipped, the board is turned
// round (White's side at the bottom, Black's tray above it); the keys follow what the eye sees.

import { cellIndex, centreOf, DIRECTIONS, parseCell, step } from "./geometry.js";

const SVG = "http://www.w3.org/2000/svg";
const MARBLE_RADIUS = 0.43;
const HOLE_RADIUS = 0.36;
const FRAME_MARGIN = 0.62; // from the corner cells' centres to the frame's corners
const LABEL_DISTANCE = 1.05; // labels sit just outside the frame, one cell out from the edge cells
const SLIDE_MS = 260;
const OPPOSITE = { E: "W", W: "E", NE: "SW", SW: "NE", NW: "SE", SE: "NW" };
let boardCount = 0; // gradient ids must be unique when a page holds two boards

function svg(tag, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.append(element);
  return element;
}

function html(tag, className, parent, text) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  if (parent) parent.append(element);
  return element;
}

const reducedMotion = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

export class BoardView {
  /**
   * @param {HTMLElement} root where the trays and the board go
   * @param {object} handlers `onActivate(cell)`, `onHover(cell|null)`, `onEscape()`
   */
  constructor(root, { onActivate = null, onHover = () => {}, onEscape = () => {}, label = "Board" } = {}) {
    this.root = root;
    // without onActivate the board is a picture: its cells can still be read one by one with the arrows
    this.interactive = Boolean(onActivate);
    this.handlers = { onActivate: onActivate ?? (() => {}), onHover, onEscape };
    this.label = label;
    this.prefix = `board${++boardCount}`;
    this.side = null;
    this.focusName = null;
    this.focusX = null; // the column that up and down arrows keep to on a zigzag of hexagons
    this.flipped = false;
    this.source = null; // the last board given to render(), as the API has it (not turned)
    this.marks = {};
    root.classList.add("board-area");
    const white = this.makeTray("white"); // White's side is the top of the board, Black's the bottom
    this.frame = html("div", "board-frame", root);
    const black = this.makeTray("black");
    this.trays = { white, black };
  }

  makeTray(colour) {
    const tray = html("div", `tray tray-${colour}`, this.root);
    tray.dataset.side = colour;
    html("span", `tray-marble ${colour}`, tray).setAttribute("aria-hidden", "true");
    const name = html("span", "tray-name", tray);
    const status = html("span", "tray-status", tray);
    const lost = html("span", "tray-lost", tray);
    const pips = html("span", "lost-pips", lost);
    pips.setAttribute("aria-hidden", "true");
    const count = html("span", "lost-count", lost);
    const clock = html("span", "tray-clock", tray);
    clock.hidden = true;
    clock.setAttribute("role", "timer");
    return { tray, name, status, lost, pips, count, clock };
  }

  /** Turn the board round (White's side at the bottom) or back; redraws what is on show. */
  setFlipped(flipped) {
    flipped = Boolean(flipped);
    this.root.classList.toggle("flipped", flipped);
    this.root.dataset.flipped = String(flipped);
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.svg = null; // labels and cells are placed anew
    if (this.source) this.render(this.source, this.marks);
  }

  /** The board as drawn: turned round (every centre mirrored through the board's centre) when flipped. */
  oriented(board) {
    if (!this.flipped) return board;
    const xs = board.cells.map((c) => c.x);
    const ys = board.cells.map((c) => c.y);
    const sx = Math.min(...xs) + Math.max(...xs);
    const sy = Math.min(...ys) + Math.max(...ys);
    return { ...board, cells: board.cells.map((c) => ({ ...c, x: sx - c.x, y: sy - c.y })) };
  }

  /** The clocks: `{black, white}` seconds left and which one runs; null hides them. */
  setClocks(clocks) {
    for (const colour of ["black", "white"]) {
      const element = this.trays[colour].clock;
      element.hidden = !clocks;
      if (!clocks) continue;
      const seconds = Math.max(0, clocks[colour]);
      element.textContent = formatClock(seconds);
      element.dataset.seconds = seconds.toFixed(1);
      element.classList.toggle("running", clocks.running === colour);
      element.classList.toggle("low", seconds < 10);
      element.setAttribute("aria-label", `${colour === "black" ? "Black" : "White"}'s clock: ${formatClock(seconds)}`);
    }
  }

  /** Names, turn and thinking indicator of the two trays. */
  setPlayers({ black, white }, { toMove = null, thinking = false, over = false } = {}) {
    for (const [colour, player] of [["black", black], ["white", white]]) {
      const tray = this.trays[colour];
      const word = colour === "black" ? "Black" : "White";
      tray.name.textContent = player ? `${word} · ${player}` : word;
      const active = !over && toMove === colour;
      tray.tray.classList.toggle("to-move", active);
      tray.tray.classList.toggle("thinking", active && thinking);
      tray.status.textContent = active ? (thinking ? "thinking…" : "to move") : "";
    }
  }

  /** Draw `board`; `marks` are cell sets to highlight: selected, targets, pushed, preview, last. */
  render(source, marks = {}) {
    this.source = source;
    this.marks = marks;
    const board = this.oriented(source);
    if (board.side !== this.side || !this.svg) this.build(board);
    this.board = board;
    this.cells = cellIndex(board);
    this.drawMarbles(board);
    this.updateCells(board, marks);
    this.updateTrays(board);
  }

  build(board) {
    this.side = board.side;
    this.frame.textContent = "";
    const xs = board.cells.map((c) => c.x);
    const ys = board.cells.map((c) => c.y);
    // room for the frame all round, and for the row letters (left) and diagonal numbers (bottom)
    // (turned round, the labels are on the right and at the top: the margins turn with them)
    const [left, right, top, bottom] = this.flipped ? [1.0, 1.5, 1.4, 0.8] : [1.5, 1.0, 0.8, 1.4];
    const [minX, maxX] = [Math.min(...xs) - left, Math.max(...xs) + right];
    const [minY, maxY] = [Math.min(...ys) - top, Math.max(...ys) + bottom];
    this.svg = svg("svg", {
      viewBox: `${minX} ${minY} ${maxX - minX} ${maxY - minY}`,
      class: this.interactive ? "board" : "board static",
      role: "group",
      "aria-label": this.label,
    }, this.frame);
    this.defineGradients();
    const centre = { x: (Math.min(...xs) + Math.max(...xs)) / 2, y: (Math.min(...ys) + Math.max(...ys)) / 2 };
    const radius = board.side - 1 + FRAME_MARGIN;
    const corners = Object.values(DIRECTIONS).map(([, , dx, dy]) => `${centre.x + radius * dx},${centre.y + radius * dy}`);
    svg("polygon", { points: corners.join(" "), class: "frame" }, this.svg);
    this.drawLabels(board);
    const holes = svg("g", { class: "holes" }, this.svg);
    for (const cell of board.cells) svg("circle", { cx: cell.x, cy: cell.y, r: HOLE_RADIUS, class: "hole" }, holes);
    this.marbleLayer = svg("g", { class: "marbles" }, this.svg);
    this.cellLayer = svg("g", { class: "cells" }, this.svg);
    this.cellEls = new Map();
    for (const cell of board.cells) this.cellEls.set(cell.name, this.makeCell(cell));
    const names = board.cells.map((c) => c.name);
    this.focusName = names[Math.floor(names.length / 2)]; // the centre cell
    this.cellEls.get(this.focusName).setAttribute("tabindex", "0");
    this.svg.addEventListener("keydown", (event) => this.onKey(event));
  }

  defineGradients() {
    const defs = svg("defs", {}, this.svg);
    const stops = { black: ["#6b6f78", "#24262b", "#050506"], white: ["#ffffff", "#f1ede4", "#b9b2a3"] };
    for (const [colour, [light, mid, dark]] of Object.entries(stops)) {
      const gradient = svg("radialGradient", { id: `${this.prefix}-${colour}`, cx: "0.38", cy: "0.34", r: "0.7" }, defs);
      svg("stop", { offset: "0", "stop-color": light }, gradient);
      svg("stop", { offset: "0.45", "stop-color": mid }, gradient);
      svg("stop", { offset: "1", "stop-color": dark }, gradient);
    }
  }

  /** Row letters left of each row; diagonal numbers below-right of each diagonal's lowest cell. */
  drawLabels(board) {
    const labels = svg("g", { class: "labels", "aria-hidden": "true" }, this.svg);
    const firstOfRow = new Map();
    const lowestOfDiagonal = new Map();
    for (const cell of board.cells) {
      const { row, diag } = parseCell(cell.name);
      if (!firstOfRow.has(row)) firstOfRow.set(row, cell);
      if (!lowestOfDiagonal.has(diag)) lowestOfDiagonal.set(diag, cell);
    }
    const put = (cell, direction, text) => {
      const [, , dx, dy] = DIRECTIONS[this.flipped ? OPPOSITE[direction] : direction];
      const element = svg("text", { x: cell.x + LABEL_DISTANCE * dx, y: cell.y + LABEL_DISTANCE * dy, class: "label" }, labels);
      element.textContent = text;
    };
    for (const cell of firstOfRow.values()) put(cell, "W", cell.name[0]);
    for (const cell of lowestOfDiagonal.values()) put(cell, "SE", cell.name.slice(1));
  }

  makeCell(cell) {
    const group = svg("g", {
      class: "cell",
      "data-cell": cell.name,
      transform: `translate(${cell.x} ${cell.y})`,
      role: this.interactive ? "button" : "img",
      tabindex: "-1",
    }, this.cellLayer);
    svg("circle", { r: 0.5, class: "hit" }, group);
    svg("circle", { r: MARBLE_RADIUS + 0.04, class: "ring" }, group);
    svg("circle", { r: 0.13, class: "dot" }, group);
    svg("circle", { r: 0.53, class: "focus-ring" }, group); // outside the selection ring: both show
    group.addEventListener("click", () => {
      this.moveFocus(cell.name, false);
      this.handlers.onActivate(cell.name);
    });
    group.addEventListener("pointerenter", () => this.handlers.onHover(cell.name));
    group.addEventListener("pointerleave", () => this.handlers.onHover(null));
    group.addEventListener("focus", () => this.handlers.onHover(cell.name));
    return group;
  }

  drawMarbles(board) {
    this.marbleLayer.textContent = "";
    this.marbleEls = new Map();
    for (const cell of board.cells) {
      if (cell.marble) this.marbleEls.set(cell.name, this.makeMarble(cell.marble, cell.x, cell.y));
    }
  }

  makeMarble(colour, x, y) {
    return svg("circle", {
      cx: x, cy: y, r: MARBLE_RADIUS, class: `marble ${colour}`, fill: `url(#${this.prefix}-${colour})`,
    }, this.marbleLayer);
  }

  updateCells(board, marks) {
    const has = (set, name) => Boolean(set && set.has(name));
    for (const cell of board.cells) {
      const element = this.cellEls.get(cell.name);
      const flags = {
        selected: has(marks.selected, cell.name),
        target: has(marks.targets, cell.name),
        pushed: has(marks.pushed, cell.name),
        preview: has(marks.preview, cell.name),
        last: has(marks.last, cell.name),
        hint: has(marks.hint, cell.name),
      };
      for (const [flag, on] of Object.entries(flags)) element.classList.toggle(flag, on);
      element.dataset.marble = cell.marble || "";
      element.classList.toggle("preview-black", flags.preview && board.to_move === "black");
      element.classList.toggle("preview-white", flags.preview && board.to_move === "white");
      const words = [cell.name, cell.marble ? `${cell.marble} marble` : "empty"];
      if (flags.selected) words.push("selected");
      if (flags.target) words.push(cell.marble ? "can be pushed here" : "legal destination");
      if (flags.hint) words.push("hint");
      element.setAttribute("aria-label", words.join(", "));
      if (this.interactive) element.setAttribute("aria-pressed", String(flags.selected));
    }
    this.svg.setAttribute("aria-label", `${this.label}: ${board.to_move} to move`);
  }

  updateTrays(board) {
    for (const colour of ["black", "white"]) {
      const tray = this.trays[colour];
      const lost = board.lost[colour];
      tray.pips.textContent = "";
      for (let i = 0; i < board.win_threshold; i++) html("span", i < lost ? `pip lost ${colour}` : "pip", tray.pips);
      tray.count.textContent = `${lost} / ${board.win_threshold}`;
      tray.lost.dataset.lost = String(lost);
      tray.lost.title = `${colour === "black" ? "Black" : "White"} has lost ${lost} marble${lost === 1 ? "" : "s"}; ` +
        `${board.win_threshold} lost lose the game`;
      tray.lost.setAttribute("aria-label", tray.lost.title);
    }
  }

  /**
   * Slide the marbles of `move` (from geometry.describeMove on `before`) from where they were
   * to where the board now shows them. Call after render() of the board after the move.
   */
  animate(before, move) {
    if (!move || reducedMotion()) return Promise.resolve();
    const old = cellIndex(this.oriented(before));
    const slides = [];
    move.marbles.forEach((from, i) => slides.push({ element: this.marbleEls.get(move.destinations[i]), from }));
    move.pushed.forEach((from, i) => {
      const last = i === move.pushed.length - 1;
      if (last && move.pushOff) {
        const origin = old.get(from);
        const element = this.makeMarble(origin.marble, origin.x, origin.y);
        element.classList.add("pushed-off");
        const outwards = this.flipped ? OPPOSITE[move.direction] : move.direction; // on screen
        slides.push({ element, from, to: centreOf(old, step(from, move.direction), from, outwards), fade: true });
      } else {
        slides.push({ element: this.marbleEls.get(step(from, move.direction)), from });
      }
    });
    const jobs = slides.filter((s) => s.element).map((s) => this.slide(s.element, old.get(s.from), s.to, s.fade));
    return Promise.all(jobs);
  }

  slide(element, from, to = null, fade = false) {
    const target = to || { x: Number(element.getAttribute("cx")), y: Number(element.getAttribute("cy")) };
    const duration = fade ? SLIDE_MS * 2 : SLIDE_MS;
    return new Promise((resolve) => {
      const start = performance.now();
      const frame = (now) => {
        const t = Math.min(1, (now - start) / duration);
        const eased = 1 - (1 - t) ** 3;
        element.setAttribute("cx", from.x + (target.x - from.x) * eased);
        element.setAttribute("cy", from.y + (target.y - from.y) * eased);
        if (fade) {
          element.setAttribute("opacity", String(1 - t));
          element.setAttribute("r", String(MARBLE_RADIUS * (1 - 0.5 * t)));
        }
        if (t < 1) requestAnimationFrame(frame);
        else {
          if (fade) element.remove();
          resolve();
        }
      };
      element.setAttribute("cx", from.x);
      element.setAttribute("cy", from.y);
      requestAnimationFrame(frame);
    });
  }

  // --- keyboard: one focusable cell (roving tabindex), arrows move between neighbours ---

  onKey(event) {
    const name = event.target.closest?.(".cell")?.dataset.cell;
    if (!name) return;
    const moves = this.flipped
      ? { ArrowLeft: "E", ArrowRight: "W", ArrowUp: -1, ArrowDown: 1 }
      : { ArrowLeft: "W", ArrowRight: "E", ArrowUp: 1, ArrowDown: -1 };
    if (event.key in moves) {
      event.preventDefault();
      const way = moves[event.key];
      const next = typeof way === "string" ? this.alongRow(name, way) : this.acrossRows(name, way);
      if (next) this.moveFocus(next, true, typeof way === "string");
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.handlers.onActivate(name);
    } else if (event.key === "Escape") {
      this.handlers.onEscape();
    }
  }

  alongRow(name, direction) {
    const next = step(name, direction);
    return this.cells.has(next) ? next : null;
  }

  /** The cell in the row above (+1) or below (-1) nearest to the column the focus keeps to. */
  acrossRows(name, rowStep) {
    const row = parseCell(name).row + rowStep;
    const x = this.focusX ?? this.cells.get(name).x;
    let best = null;
    for (const cell of this.board.cells) {
      if (parseCell(cell.name).row !== row) continue;
      // ties (a zigzag of hexagons) go right going up and left going down, so up-down-up returns
      const distance = Math.abs(cell.x - x) - rowStep * 1e-3 * Math.sign(cell.x - x);
      if (!best || distance < best.distance) best = { name: cell.name, distance };
    }
    return best?.name ?? null;
  }

  moveFocus(name, focus = true, resetColumn = true) {
    if (!this.cellEls.has(name)) return;
    this.cellEls.get(this.focusName)?.setAttribute("tabindex", "-1");
    this.focusName = name;
    const element = this.cellEls.get(name);
    element.setAttribute("tabindex", "0");
    if (resetColumn || this.focusX === null) this.focusX = this.cells.get(name).x;
    if (focus) element.focus();
  }
}

/** Seconds on a clock as m:ss, with tenths under ten seconds (h:mm:ss past an hour). */
export function formatClock(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return `0:0${s.toFixed(1)}`;
  const whole = Math.floor(s);
  const minutes = Math.floor(whole / 60) % 60;
  const hours = Math.floor(whole / 3600);
  const secs = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
}
