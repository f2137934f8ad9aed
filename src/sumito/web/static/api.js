// The JSON API of docs/web-api.md: one small function per endpoint, nothing else.
// Every failure becomes an ApiError whose message is the server's one-line `detail`,
// so the page can show it to the player as it is.

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

async function request(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch {
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
export const gameRecordUrl = (id) => `/api/games/${enc(id)}/record`;

export function archive({ player = "", layout = "", result = "", limit = 50, offset = 0 } = {}) {
  const query = new URLSearchParams({ limit, offset });
  if (player) query.set("player", player);
  if (layout) query.set("layout", layout);
  if (result) query.set("result", result);
  return request("GET", `/api/archive?${query}`);
}
export const storedGame = (id) => request("GET", `/api/archive/${enc(id)}`);
export const storedRecordUrl = (id) => `/api/archive/${enc(id)}/record`;
