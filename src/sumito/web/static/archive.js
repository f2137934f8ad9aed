// The game archive: the stored games of the arena and of this app (GET /api/archive, with
// filters by player, layout and result), and the replay of one of them move by move, from
// every position the server sends (GET /api/archive/{id}), and its analysis: every position
// scored by the engine (POST /api/archive/{id}/analysis, page by page), drawn as a graph in the
// board's own marbles, with the inaccuracies, mistakes and blunders (the command line's verdicts,
// whose thresholds the server sends) marked in the move list. On a phone the archive's rows are
// cards, every column in sight; a tap on a row opens its game.

import * as api from "./api.js";
import { BoardView } from "./board.js";
import { describeMove, movedCells } from "./geometry.js";
import { capitalised, copyText, outcomeText, renderMoveList, say, sleep } from "./ui.js";

const PAGE = 50;
const AUTOPLAY_MS = 900;
const ANALYSIS_PAGE = 10; // positions a request (each about 0.2 s of the engine on the server)
const ANALYSIS_MAX_PLIES = 400; // the analysis covers at most the first 400 plies of a game
const LOSS_DECIMALS = 2; // a move's loss as shown, and judged: as `sumito analyse` prints it
const $ = (id) => document.getElementById(id);

export class ArchiveView {
  constructor() {
    this.form = $("archive-filters");
    this.body = $("archive-table").querySelector("tbody");
    this.message = $("archive-message");
    this.range = $("archive-range");
    this.offset = 0;
    this.total = 0;
    this.loading = 0; // bumped by each load: only the latest request may draw the table
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
    // the list opened unfiltered may answer after a filtered request sent later: a stale
    // answer must not replace the newer one on the page
    const token = ++this.loading;
    try {
      const answer = await api.archive({ ...filters, limit: PAGE, offset });
      if (token !== this.loading) return;
      this.offset = offset;
      this.total = answer.total;
      this.drawRows(answer.games);
      const shown = answer.games.length;
      say(this.message, answer.total ? "" : "No stored game matches. Play one, or run `sumito match` to fill the archive.");
      this.range.textContent = shown ? `${offset + 1}–${offset + shown} of ${answer.total}` : "";
      $("archive-prev").disabled = offset === 0;
      $("archive-next").disabled = offset + shown >= answer.total;
    } catch (error) {
      if (token === this.loading) say(this.message, error.message, "error");
    }
  }

  drawRows(games) {
    this.body.textContent = "";
    const labels = [...document.querySelectorAll("#archive-table thead th")].map((th) => th.dataset.label ?? th.textContent);
    for (const game of games) {
      const row = this.body.insertRow();
      row.dataset.id = String(game.id);
      const finished = game.finished ? game.finished.replace("T", " ").slice(0, 16) : "";
      // marbles each side pushed off, Black's first: Black pushes off White's marbles
      const marbles = `${game.lost.white}–${game.lost.black}`;
      const cells = [
        game.id, finished, game.names.black, game.names.white, game.layout ?? "position", game.result, marbles,
        game.reason, game.plies,
      ];
      cells.forEach((text, column) => {
        const cell = row.insertCell();
        cell.textContent = text ?? "";
        cell.dataset.label = labels[column];
      });
      row.cells[2].title = game.black; // the specs as played, seeds included
      row.cells[3].title = game.white;
      row.cells[6].title = `Black pushed off ${game.lost.white}, White ${game.lost.black} (of ${game.win_threshold} to win)`;
      const link = document.createElement("a");
      link.href = `#replay=${game.id}`;
      link.textContent = "Replay";
      link.className = "button small";
      link.setAttribute("aria-label", `Replay game ${game.id}: ${game.names.black} against ${game.names.white}`);
      row.insertCell().append(link);
      // the whole row opens the game (on a phone the row is a card, and the card is what one taps)
      row.addEventListener("click", (event) => {
        if (!event.target.closest("a")) location.hash = `#replay=${game.id}`;
      });
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
    this.analysis = null; // {id, positions: [...], done}: the engine's scores, by ply
    this.analysing = null; // the AbortController of the analysis under way
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
    $("replay-analyse").addEventListener("click", () => (this.analysing ? this.stopAnalysis() : this.analyse()));
    $("replay-flip").addEventListener("click", () => {
      const flipped = !this.view.flipped;
      this.view.setFlipped(flipped);
      $("replay-flip").setAttribute("aria-pressed", String(flipped));
    });
    $("analysis-graph").addEventListener("click", (event) => {
      const box = event.currentTarget.getBoundingClientRect();
      const total = this.last();
      if (total > 0) this.go(Math.round(((event.clientX - box.left) / box.width) * total), { animate: false });
    });
    // ← → Home End step through the game as soon as the replay is on show (no click first):
    // the keys are heard on the whole document while the view is visible and no dialog is open
    document.addEventListener("keydown", (event) => {
      if ($("replay-view").hidden || document.querySelector("dialog[open]")) return;
      // text fields, the slider and the board's cells (arrows move between cells) keep their keys
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.target.matches?.("input, textarea, select")) return;
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

  async open(id, ply = null, { analyse = false } = {}) {
    this.stopAutoplay();
    if (String(this.game?.game.id) !== String(id)) {
      this.stopAnalysis();
      this.analysis = null;
      this.drawAnalysis();
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
    const players = { black: summary.names.black, white: summary.names.white };
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
    if (analyse && !this.analysis && !this.analysing) this.analyse();
  }

  // ----------------------------------------------------------------- analysis

  /** Score the game's positions page by page; stoppable (the request under way is aborted). */
  async analyse() {
    if (!this.game) return;
    const id = this.game.game.id;
    const total = Math.min(this.game.boards.length, ANALYSIS_MAX_PLIES + 1);
    if (this.analysis?.id !== id) this.analysis = { id, positions: [], done: false };
    const controller = new AbortController();
    this.analysing = controller;
    $("replay-analyse").textContent = "Stop analysis";
    this.drawAnalysis();
    try {
      while (this.analysis.positions.length < total && this.analysing === controller) {
        const start = this.analysis.positions.length;
        const count = Math.min(ANALYSIS_PAGE, total - start);
        const page = await api.analysis(id, start, count, controller.signal);
        if (this.analysing !== controller || this.analysis?.id !== id) return;
        if (!page.positions.length) break;
        this.analysis.positions.push(...page.positions);
        this.analysis.seconds = page.seconds;
        this.analysis.thresholds = Object.entries(page.thresholds).sort((a, b) => b[1] - a[1]); // worst first
        this.drawAnalysis();
        this.drawPanel(false);
      }
      this.analysis.done = true;
    } catch (error) {
      if (error.name !== "AbortError") say($("analysis-status"), `The analysis stopped: ${error.message}`, "error");
      return;
    } finally {
      if (this.analysing === controller) {
        this.analysing = null;
        $("replay-analyse").textContent = "Analyse";
      }
    }
    this.drawAnalysis();
  }

  stopAnalysis() {
    const controller = this.analysing;
    this.analysing = null;
    $("replay-analyse").textContent = "Analyse";
    controller?.abort();
    if (this.analysis && !this.analysis.done) this.drawAnalysis();
  }

  /** Marbles a won game counts on this game's board (its win threshold): the graph's scale. */
  scale() {
    return this.game.game.win_threshold;
  }

  /**
   * The moves worse than the engine's choice by at least the least threshold, by ply: {loss,
   * verdict, words, best, played, colour}. A move's loss is the score of the position before it
   * minus the score after it, for the side that played it, in marbles (the server's scores are
   * in the board's own scale already: a forced win counts the win threshold). The verdict is the
   * one of the loss as shown, or the worst when the move throws the game (see `thrownGame`).
   */
  mistakes() {
    const out = new Map();
    const positions = this.analysis?.positions ?? [];
    const thresholds = this.analysis?.thresholds ?? [];
    for (let ply = 1; ply < positions.length; ply++) {
      const before = positions[ply - 1];
      const after = positions[ply];
      if (!before.best || before.best === before.played) continue;
      const sign = before.to_move === "black" ? 1 : -1;
      const loss = sign * (before.black - after.black);
      const shown = loss.toFixed(LOSS_DECIMALS);
      const thrown = thrownGame(before, after);
      const verdict = thrown ? thresholds[0]?.[0] : thresholds.find(([, least]) => Number(shown) >= least)?.[0];
      if (!verdict) continue;
      const words = thrown ?? `loses ${shown} marble${Number(shown) === 1 ? "" : "s"}`;
      out.set(ply, { loss, verdict, words, best: before.best, played: before.played, colour: before.to_move });
    }
    return out;
  }

  drawAnalysis() {
    const panel = $("analysis");
    const analysis = this.analysis;
    const running = Boolean(this.analysing);
    panel.hidden = !analysis;
    $("replay-view").dataset.analysed = analysis ? String(analysis.positions.length) : "";
    if (!analysis) return;
    const graph = $("analysis-graph");
    graph.textContent = "";
    const total = Math.max(1, this.last());
    const win = this.scale();
    const x = (ply) => (ply / total) * 300;
    const y = (value) => 50 - (Math.max(-win, Math.min(win, value)) / win) * 46;
    const points = analysis.positions.map((p) => `${x(p.ply).toFixed(2)},${y(p.black).toFixed(2)}`);
    const make = (tag, attributes) => {
      const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
      for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
      graph.append(element);
      return element;
    };
    make("rect", { x: 0, y: 0, width: 300, height: 50, class: "graph-black" });
    make("rect", { x: 0, y: 50, width: 300, height: 50, class: "graph-white" });
    // the marbles axis: a line and a number at each tick (the numbers are HTML beside the graph,
    // which is stretched to the panel's width and would stretch text too)
    const axis = $("analysis-axis");
    axis.textContent = "";
    for (const tick of axisTicks(win)) {
      make("line", { x1: 0, y1: y(tick), x2: 300, y2: y(tick), class: tick === 0 ? "graph-axis" : "graph-grid" });
      const label = document.createElement("span");
      label.textContent = tick > 0 ? `+${tick}` : tick < 0 ? `−${-tick}` : "0";
      label.style.top = `${y(tick)}%`;
      axis.append(label);
    }
    if (points.length) {
      const area = `0,50 ${points.join(" ")} ${x(analysis.positions.at(-1).ply).toFixed(2)},50`;
      make("polygon", { points: area, class: "graph-area" });
      make("polyline", { points: points.join(" "), class: "graph-line" });
    }
    const mistakes = this.mistakes();
    for (const [ply, mistake] of mistakes) {
      const point = analysis.positions[ply];
      const dot = make("circle", { cx: x(ply), cy: y(point.black), r: 2.2, class: `graph-mistake ${mistake.verdict} ${mistake.colour}` });
      dot.dataset.ply = String(ply);
    }
    this.cursor = make("line", { x1: x(this.ply), y1: 0, x2: x(this.ply), y2: 100, class: "graph-cursor" });
    graph.dataset.points = String(points.length);
    const list = $("analysis-mistakes");
    list.textContent = "";
    for (const [ply, mistake] of mistakes) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "move";
      button.dataset.ply = String(ply);
      button.textContent = `${moveLabel(ply, this.game.boards[0].to_move)} ${mistake.played}`;
      button.addEventListener("click", () => this.go(ply, { animate: false }));
      const verdict = document.createElement("span");
      verdict.className = `verdict ${mistake.verdict}`;
      verdict.textContent = mistake.verdict;
      const who = mistake.colour === "black" ? "Black" : "White";
      item.dataset.verdict = mistake.verdict;
      item.append(button, " ", verdict, `: ${who} ${mistake.words}; best ${mistake.best}`);
      list.append(item);
    }
    const covered = Math.min(this.game.boards.length, ANALYSIS_MAX_PLIES + 1);
    const seconds = analysis.seconds ? `${analysis.seconds} s` : "a moment";
    const count = countVerdicts(mistakes, analysis.thresholds ?? []);
    const scale = `scores in marbles for Black, a won game ±${win}`;
    const status = running
      ? `Analysing: ${analysis.positions.length} of ${covered} positions (${seconds} each)…`
      : analysis.done
        ? `${count} (${scale}; ${seconds} a position)` +
          (covered < this.game.boards.length ? `; the first ${covered - 1} plies were analysed.` : ".")
        : `Stopped after ${analysis.positions.length} of ${covered} positions; ${count} so far.`;
    say($("analysis-status"), status);
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
    const mistakes = this.analysis ? this.mistakes() : new Map();
    const annotate = (ply) => {
      const mistake = mistakes.get(ply);
      if (!mistake) return null;
      return { className: "mistake", title: `${capitalised(mistake.verdict)}: ${mistake.words}; the engine preferred ${mistake.best}` };
    };
    renderMoveList(e.moves, this.game.moves, { firstColour: first, current: this.ply, onPick: (ply) => this.go(ply), annotate });
    if (this.cursor) {
      const x = (this.ply / Math.max(1, total)) * 300;
      this.cursor.setAttribute("x1", x);
      this.cursor.setAttribute("x2", x);
    }
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

/** The marks of the marbles axis from +win to −win: the ends, 0, and the halves when whole. */
function axisTicks(win) {
  return win % 2 === 0 ? [win, win / 2, 0, -win / 2, -win] : [win, 0, -win];
}

/**
 * How a move throws the game, for the side that played it, from the analysis of the positions
 * before and after it (each scored for its side to move; `win_in` set: a forced result, null:
 * none found): "walks into a lost game" (a forced loss, where the position was not lost), "lets a
 * won game go" (a forced win no longer there), else null. Either is a blunder whatever the loss.
 */
function thrownGame(before, after) {
  const decided = (position) => (position.win_in === null || position.win_in === undefined ? 0 : Math.sign(position.score));
  const was = decided(before); // for the side that moves
  const now = -decided(after); // the same side, its opponent to move
  if (now < 0 && was >= 0) return "walks into a lost game";
  if (was > 0 && now <= 0) return "lets a won game go";
  return null;
}

/** "1 blunder, 2 inaccuracies" (worst first; "no mistakes" when there is none). */
function countVerdicts(mistakes, thresholds) {
  const plural = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
  const parts = [];
  for (const [verdict] of thresholds) {
    const n = [...mistakes.values()].filter((m) => m.verdict === verdict).length;
    if (n) parts.push(`${n} ${n === 1 ? verdict : plural[verdict] ?? `${verdict}s`}`);
  }
  return parts.length ? parts.join(", ") : "no mistakes";
}

/** "12." for Black's move of pair 12, "12…" for White's. */
function moveLabel(ply, firstColour) {
  const offset = firstColour === "white" ? 1 : 0;
  const index = ply - 1 + offset;
  return `${Math.floor(index / 2) + 1}.${index % 2 ? ".." : ""}`;
}
