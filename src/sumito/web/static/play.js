// The live game view: the board you play on by clicks or keys, the move box, undo, redo,
// resign and start over, and the computer thinking in the background (the page polls
// GET /api/games/{id}?wait=… while `thinking`, and animates each move that arrives).
// Also: the clocks of a timed game (counted down here, judged by the server), the engine's
// hint and evaluation bar (POST /api/games/{id}/hint), the board turned round for White, and
// rematch / new game once the game is over.

import * as api from "./api.js";
import { BoardView } from "./board.js";
import { describeMove, movedCells, sortCells } from "./geometry.js";
import { clickCell, destinationsOf, movesOf, pickMove } from "./selection.js";
import { capitalised, copyText, other, outcomeText, renderMoveList, say, sleep } from "./ui.js";

const WAIT_SECONDS = 5; // each poll waits this long on the server for the computer's move
const QUEUED_WAIT_SECONDS = 1; // … and this long while the move waits for a worker (its place in the queue)
const HINT_SECONDS = 0.3; // the engine's search for a hint or the evaluation bar
const EVAL_KEY = "sumito-evaluation"; // localStorage: the evaluation bar is on
const ARCHIVE_POLLS = 5; // after a game ends, ask this many times (a second apart) for its archive id
const $ = (id) => document.getElementById(id);

export class PlayView {
  /** @param {(id: string|null) => void} onGame told the id of the game on show (for the address bar) */
  constructor({ onGame = () => {}, onNewGame = () => {} } = {}) {
    this.onGame = onGame;
    this.onNewGame = onNewGame;
    this.flipped = false;
    this.analysis = null; // {key, found}: the engine's view of the position on show
    this.pending = null; // {key, promise}: an analysis on its way
    this.hintMarks = null; // cells of the hinted move, until the position changes
    this.clockBase = null; // the clocks as last received, and when
    this.flagAsked = false; // a clock ran out on screen: the server was asked for the game's end
    this.archivePolls = 0;
    this.evalOn = readFlag(EVAL_KEY);
    this.state = null;
    this.legal = [];
    this.legalPly = -1; // the ply the legal moves belong to
    this.selection = [];
    this.anchor = null; // the marble selected last: it breaks ties between broadside moves
    this.hover = null;
    this.following = 0; // bumped to stop a polling loop that belongs to an older game or state
    this.resignArmed = false;
    this.elements = {
      status: $("play-status"), message: $("play-message"), moves: $("play-moves"), position: $("play-position"),
      undo: $("undo-button"), redo: $("redo-button"), resign: $("resign-button"), restart: $("restart-button"),
      moveForm: $("move-form"), moveInput: $("move-input"), speed: $("speed-control"), speedInput: $("speed-input"),
      speedValue: $("speed-value"), exportLink: $("play-export"), copy: $("play-copy"),
      hint: $("hint-button"), evalToggle: $("eval-toggle"), evalRow: $("eval-row"), evalBar: $("eval-bar"),
      evalText: $("eval-text"), flip: $("flip-button"), over: $("game-over-actions"), rematch: $("rematch-button"),
      overNew: $("over-new-game-button"), analyse: $("analyse-link"),
    };
    this.view = new BoardView($("play-board"), {
      label: "Board",
      onActivate: (cell) => this.activate(cell),
      onHover: (cell) => { this.hover = cell; this.drawBoard(); },
      onEscape: () => this.clearSelection("Selection cleared."),
    });
    this.wire();
  }

  wire() {
    const e = this.elements;
    e.undo.addEventListener("click", () => this.act(api.undo));
    e.redo.addEventListener("click", () => this.act(api.redo));
    e.resign.addEventListener("click", () => this.resign());
    e.restart.addEventListener("click", () => this.restart());
    e.copy.addEventListener("click", () => this.copyPosition());
    e.moveForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.typedMove();
    });
    e.speedInput.addEventListener("input", () => { e.speedValue.textContent = Number(e.speedInput.value).toFixed(1); });
    e.speedInput.addEventListener("change", () => this.act((id) => api.setSpeed(id, Number(e.speedInput.value))));
    e.hint.addEventListener("click", () => this.showHint());
    e.evalToggle.checked = this.evalOn;
    e.evalToggle.addEventListener("change", () => {
      this.evalOn = e.evalToggle.checked;
      writeFlag(EVAL_KEY, this.evalOn);
      this.drawEvaluation();
      this.updateEvaluation();
    });
    e.flip.addEventListener("click", () => this.setFlipped(!this.flipped));
    e.rematch.addEventListener("click", () => this.rematch());
    e.overNew.addEventListener("click", () => this.onNewGame());
    setInterval(() => this.tickClocks(), 200);
  }

  setFlipped(flipped) {
    this.flipped = flipped;
    this.view.setFlipped(flipped);
    this.elements.flip.setAttribute("aria-pressed", String(flipped));
  }

  // ----------------------------------------------------------------- games

  /** Before the first game: a layout's start on the board, to look at while choosing. */
  preview(board) {
    if (this.state) return;
    this.view.render(board);
    this.view.setPlayers({ black: null, white: null });
  }

  async start(settings) {
    const state = await api.newGame(settings);
    await this.show(state, { fresh: true });
  }

  async open(id) {
    if (this.state?.id === id) return;
    try {
      await this.show(await api.game(id), { fresh: true });
    } catch (error) {
      say(this.elements.message, `Game ${id}: ${error.message}`, "error");
    }
  }

  /** The settings of a new game like this one: its start, rules and clock; colours swapped for a rematch. */
  settingsLike(state, { swap = false } = {}) {
    const { black, white, board, speed, clock } = state;
    const settings = {
      black: (swap ? white : black).spec,
      white: (swap ? black : white).spec,
      win_threshold: board.win_threshold,
      inline_only: board.inline_only,
      speed: speed ?? 1,
    };
    if (board.layout) settings.layout = board.layout;
    else settings.position = state.start;
    if (clock) settings.clock = { initial: clock.initial, increment: clock.increment };
    return settings;
  }

  async restart() {
    if (!this.state) return;
    await this.guard(() => this.start(this.settingsLike(this.state)));
  }

  /** Game over: the same players again, colours swapped, from the same start with the same clock. */
  async rematch() {
    if (!this.state) return;
    await this.guard(() => this.start(this.settingsLike(this.state, { swap: true })));
  }

  /** Show a new game state: animate the move that led to it, fetch the legal moves, follow the computer. */
  async show(next, { fresh = false } = {}) {
    const before = this.state;
    const sameGame = before && before.id === next.id && !fresh;
    const moved = !sameGame || before.ply !== next.ply || before.board.position !== next.board.position;
    this.state = next;
    this.clockBase = next.clock ? { ...next.clock, at: performance.now() } : null;
    this.flagAsked = false;
    if (!sameGame) {
      this.onGame(next.id);
      // the person's colour at the bottom: White's side when they play White alone
      const humans = this.humanSides(next);
      this.setFlipped(humans.length === 1 && humans[0] === "white");
      this.analysis = null;
      this.archivePolls = 0;
      say(this.elements.message, ""); // a message about another game does not stay
    } else if (next.outcome && !before.outcome) {
      say(this.elements.message, ""); // nor one about a move of a game that has ended since (an illegal click)
    }
    if (moved) {
      this.selection = [];
      this.anchor = null;
      this.legal = [];
      this.legalPly = -1;
      this.hintMarks = null;
      delete $("play-view").dataset.legalPly;
    }
    const oneMove = sameGame && next.ply === before.ply + 1 && next.moves.slice(0, -1).join() === before.moves.join();
    if (oneMove) this.lastBoard = { after: next.board.position, board: before.board }; // marks the move exactly
    this.drawBoard();
    this.drawPanel();
    if (oneMove) await this.view.animate(before.board, describeMove(before.board, next.moves.at(-1)));
    if (this.state !== next) return; // a newer state arrived while the marbles slid
    this.updateEvaluation();
    this.awaitArchive();
    if (this.humanToMove()) await this.loadLegal();
    this.follow();
  }

  /** A finished game goes into the archive a moment after its end: ask for its id, to offer the analysis. */
  awaitArchive() {
    const state = this.state;
    if (!state.outcome || state.archive_id || this.archivePolls >= ARCHIVE_POLLS) return;
    this.archivePolls++;
    setTimeout(async () => {
      if (this.state !== state) return;
      try {
        const next = await api.game(state.id);
        if (this.state === state) await this.show(next);
      } catch {
        // the link stays hidden; nothing else depends on it
      }
    }, 1000);
  }

  // ----------------------------------------------------------------- the engine's opinion

  positionKey(state = this.state) {
    return state ? `${state.id} ${state.ply} ${state.board.position}` : "";
  }

  /** The engine's analysis of the position on show (from the server's worker pool), once per position. */
  async analyse() {
    const state = this.state;
    const key = this.positionKey(state);
    if (this.analysis?.key === key) return this.analysis.found;
    if (this.pending?.key !== key) {
      const promise = (async () => {
        // one analysis per game at a time on the server: wait for one still running for an older position
        for (let tries = 0; ; tries++) {
          try {
            return await api.hint(state.id, HINT_SECONDS);
          } catch (error) {
            if (error.status !== 409 || tries > 20) throw error;
            await sleep(250);
          }
        }
      })();
      this.pending = { key, promise };
      promise.then((found) => {
        if (found.position === state.board.position && found.ply === state.ply) this.analysis = { key, found };
      }, () => {}).finally(() => {
        if (this.pending?.promise === promise) this.pending = null;
      });
    }
    return this.pending.promise;
  }

  async showHint() {
    const state = this.state;
    if (!state) return;
    if (!this.humanToMove()) {
      say(this.elements.message, state.outcome ? "The game is over." : "A hint is for your own move: wait for your turn.", "info");
      return;
    }
    say(this.elements.message, "The engine is looking for a move…");
    let found;
    try {
      found = await this.analyse();
    } catch (error) {
      if (this.state === state) say(this.elements.message, `No hint: ${error.message}`, "error");
      return;
    }
    if (this.positionKey() !== this.positionKey(state) || !found.best) return;
    const move = describeMove(state.board, found.best);
    this.hintMarks = new Set(move ? [...move.marbles, ...move.destinations] : []);
    this.drawBoard();
    $("play-view").dataset.hint = found.best;
    const depth = found.exact ? "" : `, depth ${found.depth}`;
    say(this.elements.message, `Hint: ${found.best} (${scoreWords(found)}${depth}).`, "good");
    this.drawEvaluation();
  }

  /** The evaluation bar: when it is on, score each position the person gets to look at. */
  async updateEvaluation() {
    const state = this.state;
    this.drawEvaluation();
    if (!this.evalOn || !state || state.thinking || !this.humanSides(state).length) return;
    try {
      await this.analyse();
    } catch (error) {
      if (this.state === state) this.elements.evalText.textContent = `no evaluation: ${error.message}`;
      return;
    }
    this.drawEvaluation();
  }

  drawEvaluation() {
    const e = this.elements;
    e.evalRow.hidden = !this.evalOn || !this.state;
    if (e.evalRow.hidden) return;
    const found = this.analysis?.key === this.positionKey() ? this.analysis.found : null;
    const bar = e.evalBar;
    if (!found) {
      bar.dataset.black = "";
      e.evalText.textContent = this.state.thinking ? "after the computer's move…" : "thinking…";
      return;
    }
    const share = blackShare(found);
    bar.style.setProperty("--black-share", `${(share * 100).toFixed(1)}%`);
    bar.dataset.black = String(found.black);
    bar.setAttribute("aria-valuenow", (share * 100).toFixed(0));
    bar.setAttribute("aria-valuetext", scoreWords(found));
    e.evalText.textContent = scoreWords(found);
  }

  // ----------------------------------------------------------------- clocks

  /** Count the running clock down on screen; when it shows zero, ask the server how the game stands. */
  tickClocks() {
    const base = this.clockBase;
    const state = this.state;
    if (!base || !state) {
      this.view.setClocks(null);
      return;
    }
    const spent = (performance.now() - base.at) / 1000;
    const shown = { running: base.running, black: base.black, white: base.white };
    if (base.running) shown[base.running] = Math.max(0, base[base.running] - spent);
    this.view.setClocks(shown);
    if (base.running && shown[base.running] <= 0 && !this.flagAsked && !state.thinking) {
      this.flagAsked = true;
      setTimeout(async () => {
        if (this.state !== state) return;
        try {
          const next = await api.game(state.id);
          if (this.state === state) await this.show(next);
        } catch (error) {
          say(this.elements.message, error.message, "error");
        }
      }, 300);
    }
  }

  async loadLegal() {
    const state = this.state;
    try {
      const legal = await api.legalMoves(state.id);
      if (this.state !== state) return;
      this.legal = legal;
      this.legalPly = state.ply;
      $("play-view").dataset.legalPly = String(state.ply); // the board takes clicks from here on
      this.drawBoard();
    } catch (error) {
      say(this.elements.message, error.message, "error");
    }
  }

  /** Poll while the computer thinks; stops when a newer state or another game takes over. */
  async follow() {
    const token = ++this.following;
    while (token === this.following && this.state && this.state.thinking && !this.state.outcome) {
      const id = this.state.id;
      let next;
      const asked = performance.now();
      try {
        // while the move waits for a worker, ask more often: the place in the queue changes without a move
        const wait = this.state.queued != null ? QUEUED_WAIT_SECONDS : WAIT_SECONDS;
        next = await api.game(id, { wait, ply: this.state.ply });
      } catch (error) {
        say(this.elements.message, error.message, "error");
        await sleep(2000);
        continue;
      }
      if (token !== this.following || this.state?.id !== id) return;
      // show() starts a new follow() of its own when the state changed
      if (
        next.ply !== this.state.ply || next.thinking !== this.state.thinking || next.outcome || next.error ||
        next.queued !== this.state.queued
      ) {
        await this.show(next);
        return;
      }
      if (performance.now() - asked < 200) await sleep(300); // a server that does not wait: do not spin
    }
  }

  // ----------------------------------------------------------------- whose turn

  humanSides(state = this.state) {
    return ["black", "white"].filter((colour) => state[colour].spec === "human");
  }

  humanToMove() {
    const state = this.state;
    return Boolean(state && !state.outcome && state[state.board.to_move].spec === "human");
  }

  /** Why the board takes no move now, or null when the player may move. */
  whyNotNow() {
    const state = this.state;
    if (!state) return "Start a game first: New game.";
    if (state.outcome) return `The game is over: ${outcomeText(state.outcome, this.names())}. Undo, start over or start a new game.`;
    if (!this.humanSides().length) return "You are watching two computers play: start a new game to play yourself.";
    if (!this.humanToMove()) {
      const colour = state.board.to_move;
      const doing = state.thinking ? "is thinking" : "is to move";
      return `Not your turn: ${capitalised(colour)} (${state[colour].name}) ${doing}.`;
    }
    if (this.legalPly !== state.ply) return "One moment: the legal moves are on their way.";
    return null;
  }

  names() {
    return { black: this.state.black.name, white: this.state.white.name };
  }

  // ----------------------------------------------------------------- the player's input

  async activate(cell) {
    const reason = this.whyNotNow();
    if (reason) {
      say(this.elements.message, reason, "error");
      return;
    }
    const answer = clickCell(
      { board: this.state.board, legal: this.legal, selection: this.selection, anchor: this.anchor }, cell,
    );
    this.selection = answer.selection;
    this.anchor = answer.anchor;
    if (answer.move) {
      say(this.elements.message, "");
      await this.playMove(answer.move.notation);
      return;
    }
    say(this.elements.message, answer.message || this.selectionHint(), answer.tone);
    this.drawBoard();
  }

  selectionHint() {
    if (!this.selection.length) return "";
    const count = destinationsOf(movesOf(this.legal, this.selection), this.selection).size;
    const what = sortCells(this.selection).join(", ");
    return count ? `Selected ${what}: click a highlighted cell (or press Enter on one) to move there.` : `Selected ${what}.`;
  }

  clearSelection(message) {
    if (!this.selection.length) return;
    this.selection = [];
    this.anchor = null;
    say(this.elements.message, message, "info");
    this.drawBoard();
  }

  async typedMove() {
    const input = this.elements.moveInput;
    const text = input.value.trim();
    if (!text) {
      say(this.elements.message, "Type a move in notation first, for example c3d3.", "error");
      return;
    }
    if (!this.state) {
      say(this.elements.message, this.whyNotNow(), "error");
      return;
    }
    // the server judges the move, and says why when it is not legal or not the player's turn
    if (await this.playMove(text)) input.value = "";
  }

  async playMove(notation) {
    const id = this.state.id;
    try {
      const next = await api.play(id, notation);
      await this.show(next);
      return true;
    } catch (error) {
      say(this.elements.message, error.message, "error");
      this.drawBoard();
      if (error.status === 409 && this.state?.id === id) {
        // the game moved on without us (a clock ran out, a computer's move): show how it stands
        try {
          await this.show(await api.game(id));
          say(this.elements.message, error.message, "error");
        } catch {
          // the message above says enough
        }
      }
      return false;
    }
  }

  /** Run a game action (undo, redo, speed…) and show its answer; errors go to the message line. */
  async act(action) {
    if (!this.state) return;
    await this.guard(async () => this.show(await action(this.state.id)));
  }

  async guard(work) {
    try {
      await work();
    } catch (error) {
      say(this.elements.message, error.message, "error");
    }
  }

  async resign() {
    const state = this.state;
    if (!state || state.outcome) return;
    const button = this.elements.resign;
    if (!this.resignArmed) {
      // a second click confirms: a stray click should not end the game
      this.resignArmed = true;
      button.textContent = "Really resign?";
      button.classList.add("danger");
      setTimeout(() => this.disarmResign(), 4000);
      return;
    }
    this.disarmResign();
    const humans = this.humanSides();
    const side = humans.length === 2 ? state.board.to_move : undefined;
    await this.act((id) => api.resign(id, side));
  }

  disarmResign() {
    this.resignArmed = false;
    this.elements.resign.textContent = "Resign";
    this.elements.resign.classList.remove("danger");
  }

  async copyPosition() {
    if (!this.state) return;
    const text = this.state.board.position;
    const done = await copyText(text);
    say(this.elements.message, done ? `Copied the position: ${text}` : `Copy this position: ${text}`, done ? "good" : "info");
  }

  // ----------------------------------------------------------------- drawing

  drawBoard() {
    const state = this.state;
    if (!state) return;
    const moves = movesOf(this.legal, this.selection);
    const targets = destinationsOf(moves, this.selection);
    const marks = {
      selected: new Set(this.selection), targets: new Set(targets.keys()), last: new Set(), hint: this.hintMarks,
    };
    if (this.hover && targets.has(this.hover)) {
      const move = pickMove(targets.get(this.hover), state.board, this.selection, this.hover, this.anchor);
      if (move) {
        marks.preview = new Set(move.destinations);
        marks.pushed = new Set(move.pushed);
      }
    }
    if (state.moves.length) {
      const before = this.lastBoard?.after === state.board.position ? this.lastBoard.board : null;
      const { from, to } = movedCells(state.board, state.moves.at(-1), before);
      for (const cell of [...from, ...to]) marks.last.add(cell);
    }
    this.view.render(state.board, marks);
  }

  drawPanel() {
    const state = this.state;
    const e = this.elements;
    const over = Boolean(state.outcome);
    const watching = !this.humanSides().length;
    this.view.setPlayers(
      { black: state.black.name, white: state.white.name },
      { toMove: state.board.to_move, thinking: state.thinking, over },
    );
    e.status.textContent = this.statusText();
    e.status.dataset.state = over ? "over" : state.thinking ? "thinking" : this.humanToMove() ? "your-turn" : "waiting";
    if (state.error) say(e.message, `The computer stopped: ${state.error}`, "error");
    e.undo.disabled = !state.can_undo;
    e.redo.disabled = !state.can_redo;
    e.resign.disabled = over || watching;
    e.moveInput.disabled = over;
    e.moveForm.hidden = watching; // a spectator has no move to type
    e.speed.hidden = !watching;
    e.over.hidden = !over;
    e.analyse.hidden = !(over && state.archive_id);
    if (state.archive_id) e.analyse.href = `#replay=${state.archive_id}&analyse`;
    e.hint.disabled = over || !this.humanToMove();
    if (!over) delete $("play-view").dataset.hint;
    this.drawEvaluation();
    this.tickClocks();
    if (watching && state.speed !== null && document.activeElement !== e.speedInput) {
      e.speedInput.value = state.speed;
      e.speedValue.textContent = Number(state.speed).toFixed(1);
    }
    const firstColour = state.ply % 2 === 0 ? state.board.to_move : other(state.board.to_move);
    renderMoveList(e.moves, state.moves, { firstColour });
    e.position.value = state.board.position;
    e.exportLink.hidden = false;
    e.exportLink.href = api.gameRecordUrl(state.id);
    e.exportLink.download = `sumito-${state.id}.txt`;
    document.body.dataset.game = state.id;
    const root = $("play-view");
    root.dataset.ply = String(state.ply);
    root.dataset.state = e.status.dataset.state;
  }

  statusText() {
    const state = this.state;
    if (state.outcome) return outcomeText(state.outcome, this.names());
    const colour = state.board.to_move;
    const who = `${capitalised(colour)} (${state[colour].name})`;
    if (state.thinking && state.queued != null) {
      return `${who} is waiting for the server: queued, ${state.queued} ahead.`;
    }
    if (state.thinking) return `${who} is thinking…`;
    if (this.humanSides().length === 2) return `${capitalised(colour)} to move.`;
    if (this.humanToMove()) return `Your move: you play ${colour}.`;
    return `${who} is to move.`;
  }
}

/** The share of the bar that is Black's: 50% level, towards 100% as Black's advantage grows. */
export function blackShare(found) {
  if (found.exact) {
    if (found.exact.result === 0) return 0.5;
    return (found.exact.result > 0) === (found.to_move === "black") ? 1 : 0;
  }
  if (found.win_in !== null && found.win_in !== undefined) {
    const blackWins = (found.win_in > 0) === (found.to_move === "black");
    return blackWins ? 1 : 0;
  }
  return 1 / (1 + Math.exp(-0.9 * found.black));
}

/** A score in words: "Black +1.2", "level", "Black wins in 3", "White wins"; on a solved board the exact
 * value: "Black wins in 15 plies with perfect play (exact)", "a draw with perfect play (exact)". */
export function scoreWords(found) {
  if (found.exact) {
    const { result, plies } = found.exact;
    if (result === 0) return "a draw with perfect play (exact)";
    const winner = (result > 0) === (found.to_move === "black") ? "Black" : "White";
    return `${winner} wins in ${plies} ${plies === 1 ? "ply" : "plies"} with perfect play (exact)`;
  }
  if (found.win_in !== null && found.win_in !== undefined) {
    const moverWins = found.win_in > 0;
    const winner = moverWins === (found.to_move === "black") ? "Black" : "White";
    const plies = Math.abs(found.win_in);
    return plies ? `${winner} wins in ${plies} ${plies === 1 ? "ply" : "plies"}` : `${winner} has won`;
  }
  const value = found.black;
  if (Math.abs(value) < 0.05) return "level (0.0)";
  return `${value > 0 ? "Black" : "White"} +${Math.abs(value).toFixed(1)}`;
}

function readFlag(key) {
  try {
    return localStorage.getItem(key) === "1";
  } catch {
    return false;
  }
}

function writeFlag(key, on) {
  try {
    localStorage.setItem(key, on ? "1" : "0");
  } catch {
    // storage off: the choice lasts as long as the page
  }
}
