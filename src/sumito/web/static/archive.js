// The game archive: the stored games of the arena and of this app (GET /api/archive, with
// filters by player, layout and result), and the replay of one of them move by move, from
// every position the server sends (GET /api/archive/{id}).

import * as api from "./api.js";
import { BoardView } from "./board.js";
import { describeMove, movedCells } from "./geometry.js";
import { copyText, outcomeText, renderMoveList, say, sleep } from "./ui.js";

const PAGE = 50;
const AUTOPLAY_MS = 900;
const $ = (id) => document.getElementById(id);

export class ArchiveView {
  constructor() {
    this.form = $("archive-filters");
    this.body = $("archive-table").querySelector("tbody");
    this.message = $("archive-message");
    this.range = $("archive-range");
    this.offset = 0;
    this.total = 0;
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.load(0);
    });
    $("archive-prev").addEventListener("click", () => this.load(Math.max(0, this.offset - PAGE)));
    $("archive-next").addEventListener("click", () => this.load(this.offset + PAGE));
  }

  setLayouts(layouts) {
    const select = this.form.elements.layout;
    for (const layout of layouts) select.add(new Option(layout.name, layout.name));
  }

  async load(offset = this.offset) {
    const filters = Object.fromEntries(new FormData(this.form));
    say(this.message, "Loading…");
    try {
      const answer = await api.archive({ ...filters, limit: PAGE, offset });
      this.offset = offset;
      this.total = answer.total;
      this.drawRows(answer.games);
      const shown = answer.games.length;
      say(this.message, answer.total ? "" : "No stored game matches. Play one, or run `sumito match` to fill the archive.");
      this.range.textContent = shown ? `${offset + 1}–${offset + shown} of ${answer.total}` : "";
      $("archive-prev").disabled = offset === 0;
      $("archive-next").disabled = offset + shown >= answer.total;
    } catch (error) {
      say(this.message, error.message, "error");
    }
  }

  drawRows(games) {
    this.body.textContent = "";
    for (const game of games) {
      const row = this.body.insertRow();
      row.dataset.id = String(game.id);
      const finished = game.finished ? game.finished.replace("T", " ").slice(0, 16) : "";
      for (const text of [game.id, finished, game.black, game.white, game.layout ?? "position", game.result, game.reason, game.plies]) {
        row.insertCell().textContent = text ?? "";
      }
      const link = document.createElement("a");
      link.href = `#replay=${game.id}`;
      link.textContent = "Replay";
      link.className = "button small";
      link.setAttribute("aria-label", `Replay game ${game.id}: ${game.black} against ${game.white}`);
      row.insertCell().append(link);
    }
  }
}

export class ReplayView {
  constructor() {
    this.elements = {
      title: $("replay-title"), ply: $("replay-ply"), slider: $("replay-slider"), moves: $("replay-moves"),
      position: $("replay-position"), message: $("replay-message"), exportLink: $("replay-export"),
      play: $("replay-play"),
    };
    this.view = new BoardView($("replay-board"), { label: "Replayed board" });
    this.game = null;
    this.ply = 0;
    this.playing = 0; // bumped to stop the autoplay loop
    this.wire();
  }

  wire() {
    const e = this.elements;
    $("replay-first").addEventListener("click", () => this.go(0));
    $("replay-prev").addEventListener("click", () => this.go(this.ply - 1));
    $("replay-next").addEventListener("click", () => this.go(this.ply + 1));
    $("replay-last").addEventListener("click", () => this.go(this.last()));
    e.play.addEventListener("click", () => this.toggleAutoplay());
    e.slider.addEventListener("input", () => this.go(Number(e.slider.value), { fromSlider: true }));
    $("replay-copy").addEventListener("click", async () => {
      const text = e.position.value;
      const done = await copyText(text);
      say(e.message, done ? `Copied the position: ${text}` : `Copy this position: ${text}`, done ? "good" : "info");
    });
    // ← → Home End step through the game from anywhere in the view except text fields
    $("replay-view").addEventListener("keydown", (event) => {
      // text fields, the slider and the board's cells (arrows move between cells) keep their keys
      if (event.defaultPrevented || event.target.matches("input, textarea, select")) return;
      const keys = { ArrowLeft: -1, ArrowRight: 1 };
      if (event.key in keys) this.go(this.ply + keys[event.key]);
      else if (event.key === "Home") this.go(0);
      else if (event.key === "End") this.go(this.last());
      else return;
      event.preventDefault();
    });
  }

  last() {
    return this.game ? this.game.moves.length : 0;
  }

  async open(id, ply = null) {
    this.stopAutoplay();
    if (String(this.game?.game.id) !== String(id)) {
      say(this.elements.message, "Loading…");
      try {
        this.game = await api.storedGame(id);
      } catch (error) {
        this.game = null;
        say(this.elements.message, `Stored game ${id}: ${error.message}`, "error");
        return;
      }
      say(this.elements.message, "");
      if (this.game.truncated) {
        const shown = this.game.moves.length;
        say(this.elements.message, `The replay shows the first ${shown} of ${this.game.game.plies} plies; export the record for the rest.`, "info");
      }
    }
    const summary = this.game.game;
    const players = { black: summary.black, white: summary.white };
    const result = summary.result === "*" ? "unfinished" : outcomeText(
      { winner: { "1-0": "black", "0-1": "white" }[summary.result] ?? null, reason: summary.reason, result: summary.result },
      players,
    );
    this.elements.title.textContent = `Game ${summary.id}, ${summary.layout ?? "from a position"}: ${result}`;
    this.view.setPlayers(players);
    this.elements.slider.max = String(this.last());
    this.elements.exportLink.href = api.storedRecordUrl(summary.id);
    this.elements.exportLink.download = `sumito-archive-${summary.id}.txt`;
    this.go(ply ?? this.last(), { animate: false });
  }

  /** Show the position after `ply` moves; one step forward slides the marbles of that move. */
  go(ply, { animate = true, fromSlider = false } = {}) {
    if (!this.game) return Promise.resolve();
    const target = Math.max(0, Math.min(this.last(), ply));
    const before = this.game.boards[this.ply];
    const forward = target === this.ply + 1;
    this.ply = target;
    const board = this.game.boards[target];
    const marks = { last: new Set() };
    if (target > 0) {
      const { from, to } = movedCells(board, this.game.moves[target - 1], this.game.boards[target - 1]);
      for (const cell of [...from, ...to]) marks.last.add(cell);
    }
    this.view.render(board, marks);
    this.drawPanel(fromSlider);
    const root = $("replay-view");
    root.dataset.ply = String(target);
    if (animate && forward && before) return this.view.animate(before, describeMove(before, this.game.moves[target - 1]));
    return Promise.resolve();
  }

  drawPanel(fromSlider) {
    const e = this.elements;
    const total = this.last();
    e.ply.textContent = `Ply ${this.ply} of ${total}`;
    if (!fromSlider) e.slider.value = String(this.ply);
    e.slider.setAttribute("aria-valuetext", `ply ${this.ply} of ${total}`);
    const board = this.game.boards[this.ply];
    e.position.value = board.position;
    const first = this.game.boards[0].to_move;
    renderMoveList(e.moves, this.game.moves, { firstColour: first, current: this.ply, onPick: (ply) => this.go(ply) });
    $("replay-first").disabled = $("replay-prev").disabled = this.ply === 0;
    $("replay-next").disabled = $("replay-last").disabled = this.ply === total;
  }

  async toggleAutoplay() {
    if (this.playing % 2 === 1) {
      this.stopAutoplay();
      return;
    }
    const token = ++this.playing; // odd: playing
    this.elements.play.textContent = "Pause";
    this.elements.play.setAttribute("aria-label", "Pause");
    if (this.ply === this.last()) this.go(0, { animate: false });
    while (token === this.playing && this.ply < this.last()) {
      await sleep(AUTOPLAY_MS);
      if (token !== this.playing) return;
      await this.go(this.ply + 1);
    }
    if (token === this.playing) this.stopAutoplay();
  }

  stopAutoplay() {
    if (this.playing % 2 === 1) this.playing++;
    this.elements.play.textContent = "Play";
    this.elements.play.setAttribute("aria-label", "Play");
  }
}
