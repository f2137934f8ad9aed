// The page: three views (a live game, the archive, a replay) chosen by the address's hash,
// and the two dialogs (new game, import a record).
//
//   #game=ID     a live game (the one shown stays in the address, so a reload comes back to it)
//   #archive     the stored games
//   #replay=ID   one stored game, move by move (&ply=N at a ply, &analyse to analyse it at once)

import * as api from "./api.js";
import { ArchiveView, ReplayView } from "./archive.js";
import { PlayView } from "./play.js";
import { capitalised, say } from "./ui.js";

const $ = (id) => document.getElementById(id);
const OTHER_SPEC = "__spec__"; // the option that opens a text field for any player spec

const play = new PlayView({ onGame: rememberGame, onNewGame: () => openNewGame() });
const archive = new ArchiveView();
const replay = new ReplayView();
let presets = [];
let layouts = [];

function rememberGame(id) {
  history.replaceState(null, "", `#game=${encodeURIComponent(id)}`);
  document.querySelector('[data-nav="play"]').href = `#game=${encodeURIComponent(id)}`;
  showView("play");
}

function showView(name) {
  for (const view of ["play", "archive", "replay"]) $(`${view}-view`).hidden = view !== name;
  for (const link of document.querySelectorAll("[data-nav]")) {
    const current = link.dataset.nav === name || (name === "replay" && link.dataset.nav === "archive");
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

async function route() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.has("archive") || hash.has("replay") || hash.has("game")) {
    // a dialog opened over one view does not stay open over the next (the back button, a link)
    for (const dialog of [newGameDialog, importDialog]) if (dialog.open) dialog.close();
  }
  if (!hash.has("replay")) replay.stopAnalysis();
  if (hash.has("archive")) {
    showView("archive");
    await archive.load();
  } else if (hash.has("replay")) {
    showView("replay");
    await replay.open(hash.get("replay"), hash.has("ply") ? Number(hash.get("ply")) : null, { analyse: hash.has("analyse") });
    return;
  } else if (hash.has("game")) {
    showView("play");
    await play.open(hash.get("game"));
  } else {
    showView("play");
    if (!play.state) {
      openNewGame();
      await previewLayout("standard");
    }
  }
}

async function previewLayout(name) {
  const layout = layouts.find((l) => l.name === name);
  if (!layout?.position) return;
  try {
    play.preview(await api.position(layout.position));
  } catch {
    // only a picture behind the dialog: the dialog itself says what is wrong, if anything
  }
}

// ------------------------------------------------------------------- new game

const newGameDialog = $("new-game-dialog");
const newGameForm = $("new-game-form");

function fillChoices() {
  for (const select of newGameForm.querySelectorAll("[data-player-select]")) {
    select.textContent = "";
    for (const preset of presets) select.add(new Option(preset.name, preset.id));
    select.add(new Option("Other player spec…", OTHER_SPEC));
  }
  const layoutSelect = newGameForm.elements.layout;
  layoutSelect.textContent = "";
  for (const layout of layouts) {
    const words = `${layout.name} · ${layout.marbles} marbles, ${layout.win_threshold} to win${layout.inline_only ? ", inline only" : ""}`;
    layoutSelect.add(new Option(words, layout.name, layout.name === "standard", layout.name === "standard"));
  }
  // Watching starts with two different computers, which makes a livelier game.
  const white = newGameForm.elements.white;
  if (white.options.length > 2) white.selectedIndex = 1;
  describeChoices();
}

function describeChoices() {
  const form = newGameForm.elements;
  const mode = form.mode.value;
  newGameForm.querySelector(".clock-custom").hidden = form.clock.value !== "custom";
  newGameForm.querySelector(".for-play").hidden = mode !== "play";
  newGameForm.querySelector(".for-watch").hidden = mode !== "watch";
  for (const name of ["opponent", "black", "white"]) {
    form[`${name}-spec`].hidden = form[name].value !== OTHER_SPEC;
  }
  const preset = presets.find((p) => p.id === form.opponent.value);
  newGameForm.querySelector('[data-description="opponent"]').textContent =
    preset ? `${preset.description} (${preset.spec})` : "Any player spec, e.g. abla:depth=3 or engine:time=0.5.";
  const layout = layouts.find((l) => l.name === form.layout.value);
  const about = layout?.description ? `${capitalised(layout.description)}. ` : "";
  newGameForm.querySelector('[data-description="layout"]').textContent = layout
    ? `${about}${layout.side} cells a side; push off ${layout.win_threshold} of the ${layout.marbles} opposing marbles to win.`
    : "";
  if (layout) {
    form.win_threshold.placeholder = `${layout.win_threshold} (the layout's)`;
    form.win_threshold.max = String(layout.marbles);
  }
}

function playerOf(name) {
  const form = newGameForm.elements;
  return form[name].value === OTHER_SPEC ? form[`${name}-spec`].value.trim() : form[name].value;
}

/** The time control chosen: {initial, increment} in seconds, or null for no clock. */
function clockFromForm() {
  const form = newGameForm.elements;
  if (!form.clock.value) return null;
  if (form.clock.value === "custom") {
    return { initial: Number(form.clock_minutes.value) * 60, increment: Number(form.clock_increment.value) };
  }
  const [minutes, increment] = form.clock.value.split("+").map(Number);
  return { initial: minutes * 60, increment };
}

function settingsFromForm() {
  const form = newGameForm.elements;
  const board = { layout: form.layout.value };
  const position = form.position.value.trim();
  if (position) board.position = position;
  if (form.win_threshold.value) board.win_threshold = Number(form.win_threshold.value);
  if (form.inline_only.checked) board.inline_only = true;
  const clock = clockFromForm();
  if (clock) board.clock = clock;
  if (form.mode.value === "watch") {
    return { black: playerOf("black"), white: playerOf("white"), speed: Number(form.speed.value), ...board };
  }
  if (form.mode.value === "people") return { black: "human", white: "human", ...board };
  let colour = form.colour.value;
  if (colour === "random") colour = Math.random() < 0.5 ? "black" : "white";
  const opponent = playerOf("opponent");
  return colour === "black" ? { black: "human", white: opponent, ...board } : { black: opponent, white: "human", ...board };
}

function openNewGame() {
  say($("new-game-message"), "");
  if (!newGameDialog.open) newGameDialog.showModal();
}

newGameForm.addEventListener("change", (event) => {
  // a player that plays on one layout only (perfect play: the solved mini board) brings its layout along
  const preset = ["opponent", "black", "white"].includes(event.target.name)
    ? presets.find((p) => p.id === event.target.value) : null;
  if (preset?.layout && newGameForm.elements.layout.value !== preset.layout) {
    newGameForm.elements.layout.value = preset.layout;
    if (!newGameForm.elements.position.value.trim()) previewLayout(preset.layout);
  }
  describeChoices();
  if (event.target.name === "layout" && !newGameForm.elements.position.value.trim()) previewLayout(event.target.value);
});

// A start position typed or pasted: checked by the server as it is typed (one line when it is
// not a position), and shown behind the dialog when it is one.
let positionCheck = 0;
newGameForm.elements.position.addEventListener("input", () => {
  const check = ++positionCheck;
  setTimeout(() => checkPosition(check), 250);
});

async function checkPosition(check) {
  if (check !== positionCheck) return;
  const text = newGameForm.elements.position.value.trim();
  const line = $("position-message");
  if (!text) {
    say(line, "");
    delete line.dataset.valid;
    previewLayout(newGameForm.elements.layout.value);
    return;
  }
  try {
    const board = await api.position(text);
    if (check !== positionCheck) return;
    line.dataset.valid = "true";
    say(line, `A ${board.side}-cell board, ${board.to_move} to move${board.layout ? ` (the ${board.layout} start)` : ""}.`, "good");
    play.preview(board);
  } catch (error) {
    if (check !== positionCheck) return;
    line.dataset.valid = "false";
    say(line, `Not a position: ${error.message}`, "error");
  }
}
newGameForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const settings = settingsFromForm();
  if (!settings.black || !settings.white) {
    say($("new-game-message"), "Type a player spec, or choose one of the players.", "error");
    return;
  }
  say($("new-game-message"), "Starting…");
  $("start-button").disabled = true;
  try {
    await play.start(settings);
    newGameDialog.close();
  } catch (error) {
    say($("new-game-message"), error.message, "error");
  } finally {
    $("start-button").disabled = false;
  }
});

// ------------------------------------------------------------------- import

const importDialog = $("import-dialog");

$("import-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (file) $("import-text").value = await file.text();
});

$("import-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = $("import-text").value;
  if (!text.trim()) {
    say($("import-message"), "Paste a game record or choose a file first.", "error");
    return;
  }
  try {
    const answer = await api.importRecord(text);
    importDialog.close();
    await play.show(answer.game, { fresh: true });
    say($("play-message"), "Imported: undo and redo step through the game; play on from any position.", "good");
  } catch (error) {
    say($("import-message"), error.message, "error");
  }
});

// ------------------------------------------------------------------- start

for (const dialog of [newGameDialog, importDialog]) {
  for (const button of dialog.querySelectorAll("[data-close]")) button.addEventListener("click", () => dialog.close());
}
$("new-game-button").addEventListener("click", openNewGame);
$("import-button").addEventListener("click", () => {
  say($("import-message"), "");
  importDialog.showModal();
});
window.addEventListener("hashchange", route);

async function main() {
  try {
    [presets, layouts] = await Promise.all([api.presets(), api.layouts()]);
  } catch (error) {
    say($("play-message"), `The page could not load the players and layouts: ${error.message}`, "error");
  }
  fillChoices();
  archive.setLayouts(layouts);
  await route();
}

main();
