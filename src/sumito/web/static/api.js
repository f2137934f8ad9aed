// The JSON API of docs/web-api.md: one small function per endpoint, nothing else.
// Every failure becomes an ApiError whose message is the server's one-line `detail`,
// so the page can show it to the player as it is.
//
// Every request carries this browser's owner token (header X-Sumito-Token, kept in
// localStorage): the games the page creates are owned by it, and only requests with it may
// move, undo, resign or delete them.

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

const TOKEN_KEY = "sumito-token";
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
let memoryToken = null;

function freshToken() {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** This browser's owner token: made once, then kept (in memory only where storage is off). */
export function clientToken() {
  try {
    let token = localStorage.getItem(TOKEN_KEY);
    if (!token || !TOKEN_PATTERN.test(token)) {
      token = freshToken();
      localStorage.setItem(TOKEN_KEY, token);
    }
    return token;
  } catch {
    memoryToken ??= freshToken();
    return memoryToken;
  }
}

async function request(method, path, body, signal = undefined) {
  const options = { method, headers: { "X-Sumito-Token": clientToken() }, signal };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    throw new ApiError(0, "The server cannot be reached; is `sumito serve` still running?");
  }
  const type = response.headers.get("Content-Type") || "";
  const payload = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const detail = typeof payload === "object" && payload ? payload.detail : payload;
    throw new ApiError(response.status, describeDetail(detail, response.status));
  }
  return payload;
}

// FastAPI's validation errors are a list of objects; anything else is already one line.
function describeDetail(detail, status) {
  if (Array.isArray(detail)) {
    return detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
  }
  return detail || `the server answered ${status}`;
}

const enc = encodeURIComponent;

export const presets = () => request("GET", "/api/presets");
export const layouts = () => request("GET", "/api/layouts");
export const newGame = (settings) => request("POST", "/api/games", settings);
/** A game's state; with `wait`, the server holds the answer up to that many seconds for the
 * computer's move, and with `ply` it answers at once when the game has already moved on. */
export function game(id, { wait = 0, ply = null } = {}) {
  const query = new URLSearchParams();
  if (wait) query.set("wait", wait);
  if (wait && ply !== null) query.set("ply", ply);
  return request("GET", `/api/games/${enc(id)}${wait ? `?${query}` : ""}`);
}
export const legalMoves = (id) => request("GET", `/api/games/${enc(id)}/legal`);
export const play = (id, move) => request("POST", `/api/games/${enc(id)}/moves`, { move });
export const undo = (id) => request("POST", `/api/games/${enc(id)}/undo`);
export const redo = (id) => request("POST", `/api/games/${enc(id)}/redo`);
export const resign = (id, side) => request("POST", `/api/games/${enc(id)}/resign`, side ? { side } : {});
export const setSpeed = (id, speed) => request("POST", `/api/games/${enc(id)}/speed`, { speed });
export const importRecord = (text) => request("POST", "/api/records", { text });
export const position = (text) => request("POST", "/api/position", { position: text });
/** The engine's best move and score of a game's position now (a short search on the server). */
export const hint = (id, seconds = 0.3) => request("POST", `/api/games/${enc(id)}/hint`, { seconds });
/** One page of a stored game's analysis (`signal` aborts it: the server stops at the next position). */
export const analysis = (id, start, count, signal) =>
  request("POST", `/api/archive/${enc(id)}/analysis`, { start, count }, signal);
export const gameRecordUrl = (id) => `/api/games/${enc(id)}/record`;

export function archive({ player = "", layout = "", result = "", limit = 50, offset = 0 } = {}) {
  const query = new URLSearchParams({ limit, offset });
  if (player) query.set("player", player);
  if (layout) query.set("layout", layout);
  if (result) query.set("result", result);
  return request("GET", `/api/archive?${query}`);
}
export const deleteGame = (id) => request("DELETE", `/api/games/${enc(id)}`);

// The server sends a stored game in pages of boards; the replay loads the pages one after the
// other, up to REPLAY_MAX_PLIES (a pathological 40,000-ply game would not fit in the page).
const REPLAY_PAGE = 500;
const REPLAY_MAX_PLIES = 5000;

export async function storedGame(id) {
  const page = (start) => request("GET", `/api/archive/${enc(id)}?start=${start}&count=${REPLAY_PAGE}`);
  const game = await page(0);
  const wanted = Math.min(game.game.plies, REPLAY_MAX_PLIES) + 1;
  while (game.boards.length < wanted) {
    const next = await page(game.boards.length);
    if (!next.boards.length) break;
    game.boards.push(...next.boards);
    game.moves.push(...next.moves);
  }
  game.moves = game.moves.slice(0, game.boards.length - 1);
  game.truncated = game.moves.length < game.game.plies;
  return game;
}
export const storedRecordUrl = (id) => `/api/archive/${enc(id)}/record`;
