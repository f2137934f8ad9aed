"""The web page end to end, in a real headless browser (Playwright driving Debian's chromium).

The real server (`sumito serve`) runs in a subprocess on a free port with temporary databases;
the archive is seeded by `sumito match`. The tests click, type and read the page as a person
would, and check what it shows against the JSON API. Skipped with a clear message when
playwright or /usr/bin/chromium is missing (`.ci/run` installs both).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from sumito.defaults import THRESHOLDS

from helpers import SUMITO_MAIN, served

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - CI installs it
    sync_playwright = None

CHROMIUM = Path("/usr/bin/chromium")
# Every wait is for a state of the page; its bound only ends a test whose server hung. It is wide because a
# loaded two-core machine (or a first compile of the engine's kernels in the server) can take minutes.
STATE_WAIT_MS = 300_000

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install -y chromium)"),
]

# the page shows the player's turn and has the legal moves for it (or the game is over)
YOUR_TURN_OR_OVER = """() => {
  const view = document.getElementById("play-view");
  const ready = view.dataset.state === "your-turn" && view.dataset.legalPly === view.dataset.ply;
  return ready || view.dataset.state === "over";
}"""


# --------------------------------------------------------------------------- the server
SEEDED = 777013
# the owner token of the games these tests create through the API; the page gets it in its storage
TOKEN = "browser-test-token-0123456789"  # the seed of the stored games' second player


@pytest.fixture(scope="module")
def archive_path(tmp_path_factory) -> Path:
    """An arena archive with two finished random games on the mini board."""
    path = tmp_path_factory.mktemp("archive") / "games.sqlite"
    # a seed no derived seed is likely to begin with: the archive filter below matches substrings, and
    # other tests' games (random players with derived seeds) go into the same archive
    match = ["match", "random", f"random:seed={SEEDED}", "-n", "2", "--layout", "mini", "--seed", "7", "--quiet"]
    subprocess.run([*SUMITO_MAIN, *match, "--workers", "1", "--db", str(path)], check=True, capture_output=True,
                   timeout=STATE_WAIT_MS / 1000)
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory, archive_path) -> str:
    """`sumito serve` on a free port; the base address, e.g. http://127.0.0.1:40123/."""
    with served(tmp_path_factory.mktemp("serve"), "--workers", "1", "--archive", str(archive_path)) as url:
        yield url


def api(base: str, method: str, path: str, body: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path.lstrip("/"),
        data=data,
        method=method,
        headers={"Content-Type": "application/json", "X-Sumito-Token": TOKEN},
    )
    with urllib.request.urlopen(request, timeout=STATE_WAIT_MS / 1000) as response:
        text = response.read().decode()
        return json.loads(text) if "json" in response.headers.get("Content-Type", "") else text


# --------------------------------------------------------------------------- the browser
@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM))
        yield chromium
        chromium.close()


@contextlib.contextmanager
def opened_page(browser, **options):
    """A page in a new browser context with `options` (its viewport, touch), which owns the tests'
    games; it must log no error."""
    context = browser.new_context(**options)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    # the page owns the games the tests create through the API (api.js keeps its token there)
    context.add_init_script(f"localStorage.setItem('sumito-token', {json.dumps(TOKEN)})")
    page = context.new_page()
    page.set_default_timeout(STATE_WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # the browser logs every 4xx answer (an illegal move typed) as "Failed to load resource": expected
    expected = "Failed to load resource"
    page.on(
        "console", lambda msg: msg.type == "error" and not msg.text.startswith(expected) and errors.append(msg.text)
    )
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"the page logged errors: {errors}"


@pytest.fixture
def page(browser):
    with opened_page(browser, viewport={"width": 1280, "height": 860}) as page:
        yield page


#: a laptop's screen with a mouse, and a phone's with a touch screen
SCREENS = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}


@pytest.fixture(params=list(SCREENS))
def screen(browser, request):
    """A page on each of SCREENS: a test that takes it runs on a laptop and on a phone."""
    with opened_page(browser, **SCREENS[request.param]) as page:
        yield page


def touch(page) -> bool:
    return SCREENS["phone"]["viewport"] == page.viewport_size


def press(locator) -> None:
    """Tap on a phone, click on a laptop (either scrolls the page first when the target is out of sight)."""
    if touch(locator.page):
        locator.tap()
    else:
        locator.click()


@pytest.fixture
def shots(tmp_path_factory) -> Path:
    """Where screenshots go: SUMITO_SCREENSHOTS to keep them, else a temporary folder."""
    folder = os.environ.get("SUMITO_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        return Path(folder)
    return tmp_path_factory.mktemp("screenshots")


def cell(page, name: str):
    return page.locator(f'#play-view [data-cell="{name}"]')


def message(page) -> str:
    return page.locator("#play-message").inner_text()


def board_marbles(page, view: str) -> dict[str, str]:
    """Cell name → "black"/"white" for every marble the page shows in a view."""
    return page.eval_on_selector_all(
        f"#{view}-view [data-cell]",
        "cells => Object.fromEntries(cells.filter(c => c.dataset.marble).map(c => [c.dataset.cell, c.dataset.marble]))",
    )


def api_marbles(board: dict) -> dict[str, str]:
    return {c["name"]: c["marble"] for c in board["cells"] if c["marble"]}


def choose(legal: list[dict], board: dict) -> dict:
    """A greedy pick that beats `random` on the mini board in a few moves: push off, push, go central."""
    cells = {c["name"]: c for c in board["cells"]}
    cx = sum(c["x"] for c in cells.values()) / len(cells)
    cy = sum(c["y"] for c in cells.values()) / len(cells)

    def spread(names):
        return sum(math.hypot(cells[n]["x"] - cx, cells[n]["y"] - cy) for n in names)

    return max(
        legal,
        key=lambda m: (
            m["push_off"],
            len(m["pushed"]),
            spread(m["marbles"]) - spread(m["destinations"]),
            m["notation"],
        ),
    )


def click_move(page, move: dict, legal: list[dict]) -> None:
    """Select the move's marbles (in line order) and click a destination only this move reaches."""
    marbles = sorted(move["marbles"], key=lambda n: (n[0], int(n[1:])))
    for name in marbles:
        cell(page, name).click()
    rivals = [m for m in legal if set(m["marbles"]) == set(marbles) and m is not move]
    own = [d for d in move["destinations"] if d not in marbles]
    unique = [d for d in own if not any(d in r["destinations"] for r in rivals)]
    target = (unique or own)[0]
    assert "target" in cell(page, target).get_attribute("class")  # highlighted before the click
    cell(page, target).click()


# --------------------------------------------------------------------------- the tests
def test_play_a_whole_game_by_clicks(page, server, shots):
    page.goto(server)
    form = page.locator("#new-game-form")
    form.wait_for()  # the new-game dialog opens on a first visit
    form.locator("select[name=layout]").select_option("mini")
    form.locator("select[name=opponent]").select_option("__spec__")
    form.locator("input[name=opponent-spec]").fill("random:seed=1")
    form.locator("input[name=colour][value=black]").check()
    page.click("#start-button")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    game_id = page.evaluate("document.body.dataset.game")
    assert f"#game={game_id}" in page.url

    for _ in range(60):
        page.wait_for_function(YOUR_TURN_OR_OVER)
        state = api(server, "GET", f"api/games/{game_id}")
        if state["outcome"]:
            break
        assert page.locator("#play-view").get_attribute("data-ply") == str(state["ply"])
        legal = api(server, "GET", f"api/games/{game_id}/legal")
        move = choose(legal, state["board"])
        click_move(page, move, legal)
        page.wait_for_function(f"() => Number(document.getElementById('play-view').dataset.ply) > {state['ply']}")
        assert api(server, "GET", f"api/games/{game_id}")["moves"][state["ply"]] == move["notation"]
    else:
        pytest.fail("the game did not end in 60 moves")

    state = api(server, "GET", f"api/games/{game_id}")
    assert state["outcome"]["winner"] == "black" and state["outcome"]["reason"] == "push-off"
    assert page.locator("#play-moves .move").all_inner_texts() == state["moves"]
    for colour in ("black", "white"):
        lost = page.locator(f"#play-view .tray-{colour} .tray-lost")
        assert lost.get_attribute("data-lost") == str(state["board"]["lost"][colour])
        assert f"{state['board']['lost'][colour]} / 2" in lost.inner_text()
    assert "Black (You) wins" in page.locator("#play-status").inner_text()
    assert board_marbles(page, "play") == api_marbles(state["board"])
    # a click on the finished game says why nothing happens
    cell(page, "c3").click()
    assert "The game is over" in message(page)
    page.locator("#play-board").screenshot(path=str(shots / "mini-won.png"))


def test_illegal_clicks_and_moves_are_explained(page, server):
    state = api(server, "POST", "api/games", {"black": "human", "white": "random", "layout": "standard"})
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function(YOUR_TURN_OR_OVER)

    cell(page, "i5").click()
    assert "i5 is a white marble, and you play black" in message(page)
    cell(page, "e5").click()
    assert "First select" in message(page)
    cell(page, "c3").click()
    assert "selected" in cell(page, "c3").get_attribute("aria-label")
    cell(page, "e7").click()
    assert "No legal move that way: e7 is not next to c3" in message(page)
    cell(page, "a5").click()  # not in a line with c3: selected alone
    assert "not in a line" in message(page)
    cell(page, "a5").click()  # deselect: nothing selected
    for name in ("a1", "a2", "a3", "a4"):
        cell(page, name).click()
    assert "At most three marbles" in message(page)
    cell(page, "a4").click()  # deselect: nothing selected
    cell(page, "b5").click()
    cell(page, "b6").click()
    cell(page, "c5").click()  # c5 is not in a line with b5, b6
    assert "not in a line" in message(page)

    # the move box: the server's reason, then a legal move
    page.fill("#move-input", "c3e3")
    page.click("#move-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('play-message').dataset.tone === 'error'")
    assert "c3e3" in message(page) or "neighbour" in message(page)
    page.fill("#move-input", "c3d3")
    page.press("#move-input", "Enter")
    page.wait_for_function("() => document.getElementById('play-view').dataset.ply !== '0'")
    assert page.locator("#play-moves .move").first.inner_text() == "c3d3"

    # the keyboard: arrows move the focus between cells, Enter selects, Escape clears
    page.wait_for_function(YOUR_TURN_OR_OVER)
    cell(page, "b2").focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.cell") == "b3"
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.dataset.cell") in ("c3", "c4")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.cell") == "b3"
    page.keyboard.press("Enter")
    assert cell(page, "b3").get_attribute("aria-pressed") == "true"
    page.keyboard.press("Escape")
    assert cell(page, "b3").get_attribute("aria-pressed") == "false"


def test_not_your_turn_and_watching_are_explained(page, server):
    # the computer (Black) thinks for 30 s, longer than a loaded machine takes to click: a click meanwhile is
    # explained, and resigning works (and stops the search)
    spec = "engine:time=30,nnue=builtin-nnue"
    state = api(server, "POST", "api/games", {"black": spec, "white": "human", "layout": "standard"})
    page.goto(f"{server}#game={state['id']}")
    wait_for_state(page, "thinking")
    cell(page, "i5").click()
    shown = message(page)
    assert shown.startswith("Not your turn: Black (") and shown.endswith(") is thinking."), shown
    assert "thinking" in page.locator("#play-view .tray-black").inner_text()
    page.click("#resign-button")
    page.click("#resign-button")  # the second click confirms
    wait_for_state(page, "over")
    assert "wins by resignation" in page.locator("#play-status").inner_text()

    # two computers: the page follows their moves and explains that it only watches
    state = api(
        server, "POST", "api/games", {"black": "greedy", "white": "random:seed=3", "layout": "mini", "speed": 0.3}
    )
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function("() => Number(document.getElementById('play-view').dataset.ply) >= 2")
    assert page.locator("#speed-control").is_visible()
    cell(page, "c3").click()
    assert "watching two computers" in message(page)
    page.wait_for_function("() => document.getElementById('play-view').dataset.state === 'over'")
    final = api(server, "GET", f"api/games/{state['id']}")
    assert page.locator("#play-moves .move").all_inner_texts() == final["moves"]


def test_a_stale_archive_answer_does_not_replace_a_newer_one(page, server):
    # the list opened unfiltered is held back until a filtered list (that matches no game) has been
    # drawn: its late answer must leave the filtered list on the page (it once replaced it, now and
    # then, on a busy machine)
    held = []
    page.route(
        "**/api/archive?*",
        lambda route: held.append(route) if "player=" not in route.request.url else route.continue_(),
    )
    page.goto(f"{server}#archive")
    page.wait_for_function("() => document.getElementById('archive-message').textContent.includes('Loading')")
    page.fill("#archive-filters input[name=player]", "no-player-is-named-so")
    page.click("#archive-filters button[type=submit]")
    page.wait_for_function("() => document.getElementById('archive-message').textContent.includes('No stored game')")
    assert held, "the unfiltered request was not held"
    with page.expect_response(lambda response: "api/archive?" in response.url and "player=" not in response.url):
        for route in held:
            route.continue_()
    page.wait_for_timeout(500)  # time for the late answer's handler to run
    assert page.locator("#archive-table tbody tr").count() == 0
    assert "No stored game matches" in page.locator("#archive-message").inner_text()


def test_replay_import_and_copy_a_stored_game(page, server, shots):
    page.goto(f"{server}#archive")
    page.fill("#archive-filters input[name=player]", f"seed={SEEDED}")
    page.click("#archive-filters button[type=submit]")
    rows = page.locator("#archive-table tbody tr")
    # the unfiltered list may still be on the page: wait until the filtered one has replaced it
    page.wait_for_function(
        """(seed) => {
            const rows = [...document.querySelectorAll('#archive-table tbody tr')];
            return rows.length > 0 && rows.every((row) => row.textContent.includes(seed));
        }""",
        arg=f"seed={SEEDED}",
    )
    assert rows.count() == 2
    stored_id = rows.first.get_attribute("data-id")
    stored = api(server, "GET", f"api/archive/{stored_id}")
    boards = stored["boards"]
    rows.first.get_by_role("link", name="Replay").first.click()

    view = page.locator("#replay-view")
    view.wait_for()
    last = len(stored["moves"])
    page.wait_for_function(f"() => document.getElementById('replay-view').dataset.ply === '{last}'")
    assert board_marbles(page, "replay") == api_marbles(boards[-1])

    page.click("#replay-first")
    assert view.get_attribute("data-ply") == "0"
    assert board_marbles(page, "replay") == api_marbles(boards[0])
    page.click("#replay-next")
    assert board_marbles(page, "replay") == api_marbles(boards[1]) != api_marbles(boards[0])
    assert page.input_value("#replay-position") == boards[1]["position"]
    page.locator("#replay-slider").fill("3")
    assert view.get_attribute("data-ply") == "3"
    assert board_marbles(page, "replay") == api_marbles(boards[3])
    page.click("#replay-prev")
    assert board_marbles(page, "replay") == api_marbles(boards[2])
    page.click("#replay-last")
    page.locator("#replay-prev").focus()  # ← → Home End step from anywhere in the view
    page.keyboard.press("ArrowLeft")
    assert view.get_attribute("data-ply") == str(last - 1)
    assert board_marbles(page, "replay") == api_marbles(boards[last - 1])
    assert page.locator("#replay-moves .move.current").inner_text() == stored["moves"][last - 2]
    view.screenshot(path=str(shots / "replay.png"))

    # copy the position string
    page.click("#replay-copy")
    assert page.evaluate("navigator.clipboard.readText()") == boards[last - 1]["position"]

    # export, then import the record: it opens as a game at its last position
    record = api(server, "GET", page.get_attribute("#replay-export", "href"))
    assert '[Layout "mini"]' in record
    page.click("#import-button")
    page.set_input_files(
        "#import-file", files=[{"name": "game.txt", "mimeType": "text/plain", "buffer": record.encode()}]
    )
    page.wait_for_function("() => document.getElementById('import-text').value.includes('[Layout')")
    assert page.input_value("#import-text") == record
    page.click("#import-form button[type=submit]")
    page.wait_for_function(f"() => document.getElementById('play-view').dataset.ply === '{last}'")
    assert page.locator("#play-moves .move").all_inner_texts() == stored["moves"]
    assert board_marbles(page, "play") == api_marbles(boards[-1])
    # the game is over: it stays as it ended (undo is for a game in progress)
    wait_for_state(page, "over")
    assert page.locator("#undo-button").is_disabled()


def test_screenshots_show_the_board_on_a_laptop_and_a_phone(page, server, shots):
    import matplotlib.image

    state = api(server, "POST", "api/games", {"black": "human", "white": "greedy", "layout": "standard"})
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    cells = {c["name"]: c["marble"] for c in state["board"]["cells"]}
    for size, name in (((1280, 860), "laptop"), ((390, 844), "phone")):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(100)
        # the page fits the screen's width: nothing to scroll sideways
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        path = shots / f"standard-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        image = matplotlib.image.imread(str(path))[..., :3]
        assert image.shape[1] == size[0]
        assert image.std() > 0.1, "the screenshot is (nearly) blank"
        luminance = image @ [0.299, 0.587, 0.114]
        seen = {"black": 0, "white": 0, None: 0}
        for name_, marble in cells.items():
            box = cell(page, name_).bounding_box()
            x, y = int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] / 2)
            value = luminance[y - 2 : y + 3, x - 2 : x + 3].mean()
            kind = "black" if value < 0.3 else "white" if value > 0.8 else None
            seen[kind] += 1
            assert kind == marble, f"{name_} should look {marble}, its centre has luminance {value:.2f} ({name})"
        assert seen["black"] == seen["white"] == 14
        # the board scales with the screen: most of the phone's width, a good part of the laptop's
        board = page.locator("#play-board svg").bounding_box()
        assert board["width"] > (0.85 * size[0] if name == "phone" else 500)


# --------------------------------------------------------------------------- the page's clocks, hint and analysis
def wait_for_state(page, state: str, timeout: float = STATE_WAIT_MS) -> None:
    page.wait_for_function(f"() => document.getElementById('play-view').dataset.state === '{state}'", timeout=timeout)


def centre_y(page, name: str) -> float:
    box = cell(page, name).bounding_box()
    return box["y"] + box["height"] / 2


def test_the_board_turns_round_for_white_and_on_request(page, server):
    state = api(server, "POST", "api/games", {"black": "greedy", "white": "human", "layout": "standard"})
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    board = page.locator("#play-board")
    assert board.get_attribute("data-flipped") == "true"
    assert centre_y(page, "a1") < centre_y(page, "i5")  # Black's side (row a) at the top, White's at the bottom
    trays = page.eval_on_selector_all(
        "#play-board .tray", "ts => ts.map(t => [t.dataset.side, t.getBoundingClientRect().y])"
    )
    assert dict(trays)["black"] < dict(trays)["white"]
    # the keys follow the eye: up goes towards the top of the screen (row a when turned round)
    cell(page, "e5").focus()
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.dataset.cell").startswith("d")
    page.click("#flip-button")
    assert board.get_attribute("data-flipped") == "false"
    assert page.get_attribute("#flip-button", "aria-pressed") == "false"
    assert centre_y(page, "a1") > centre_y(page, "i5")
    # clicks still play on the turned board
    page.click("#flip-button")
    legal = api(server, "GET", f"api/games/{state['id']}/legal")
    ply = int(page.locator("#play-view").get_attribute("data-ply"))
    click_move(page, legal[0], legal)
    page.wait_for_function(f"() => Number(document.getElementById('play-view').dataset.ply) > {ply}")
    assert api(server, "GET", f"api/games/{state['id']}")["moves"][ply] == legal[0]["notation"]

    # playing Black: not turned
    state = api(server, "POST", "api/games", {"black": "human", "white": "greedy", "layout": "mini"})
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function(f"() => document.body.dataset.game === '{state['id']}'")
    assert board.get_attribute("data-flipped") == "false"


def test_hint_and_evaluation_bar(page, server):
    state = api(server, "POST", "api/games", {"black": "human", "white": "random:seed=4", "layout": "mini"})
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    assert page.locator("#eval-row").is_hidden()  # off until asked for
    page.check("#eval-toggle")
    page.wait_for_function("() => document.getElementById('eval-bar').dataset.black")
    score = float(page.get_attribute("#eval-bar", "data-black"))
    assert -100 <= score <= 100
    assert page.locator("#eval-text").inner_text().strip()
    page.click("#hint-button")
    page.wait_for_function("() => document.getElementById('play-view').dataset.hint")
    hinted = page.get_attribute("#play-view", "data-hint")
    legal = {m["notation"]: m for m in api(server, "GET", f"api/games/{state['id']}/legal")}
    assert hinted in legal
    marked = set(page.eval_on_selector_all("#play-view .cell.hint", "cs => cs.map(c => c.dataset.cell)"))
    assert set(legal[hinted]["marbles"]) <= marked
    assert hinted in message(page)
    # the evaluation follows the game: after a move and the computer's reply, a new score comes
    page.fill("#move-input", hinted)
    page.press("#move-input", "Enter")
    page.wait_for_function("() => Number(document.getElementById('play-view').dataset.ply) >= 2")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    page.wait_for_function("() => document.getElementById('eval-bar').dataset.black")
    assert page.locator("#play-view .cell.hint").count() == 0  # the hint was for the position before


def test_clock_runs_out_then_rematch_and_new_game(page, server):
    page.goto(server)
    form = page.locator("#new-game-form")
    form.wait_for()
    form.locator("select[name=layout]").select_option("mini")
    form.locator("select[name=opponent]").select_option("__spec__")
    form.locator("input[name=opponent-spec]").fill("random:seed=1")
    form.locator("input[name=colour][value=black]").check()
    form.locator("select[name=clock]").select_option("custom")
    form.locator("input[name=clock_minutes]").fill("0.05")  # 3 seconds
    form.locator("input[name=clock_increment]").fill("0")
    page.click("#start-button")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    game_id = page.evaluate("document.body.dataset.game")
    clock = page.locator("#play-board .tray-black .tray-clock")
    assert clock.is_visible() and "running" in clock.get_attribute("class")
    assert api(server, "GET", f"api/games/{game_id}")["clock"]["initial"] == 3
    # nobody moves: Black's clock runs out and White wins on time
    wait_for_state(page, "over")
    state = api(server, "GET", f"api/games/{game_id}")
    assert state["outcome"] == {"winner": "white", "reason": "time", "result": "0-1"}
    assert "wins on time" in page.locator("#play-status").inner_text()
    assert clock.inner_text() == "0:00.0"
    assert page.locator("#game-over-actions").is_visible()

    page.click("#rematch-button")
    page.wait_for_function(f"() => document.body.dataset.game && document.body.dataset.game !== '{game_id}'")
    rematch = api(server, "GET", f"api/games/{page.evaluate('document.body.dataset.game')}")
    assert rematch["black"]["spec"] == "random:seed=1" and rematch["white"]["spec"] == "human"
    assert rematch["clock"]["initial"] == 3 and rematch["board"]["layout"] == "mini"
    assert page.locator("#play-board").get_attribute("data-flipped") == "true"  # now playing White
    page.wait_for_function(YOUR_TURN_OR_OVER)
    page.click("#resign-button")
    page.click("#resign-button")
    wait_for_state(page, "over")
    page.click("#over-new-game-button")
    assert page.locator("#new-game-dialog").get_attribute("open") is not None


POSITION = "2w/2wb/2bww/w1b1/b1b b 0 0 10"  # mini; Black's a3b4 lets White push a marble off (d4c4)


def test_a_game_from_a_position_string(page, server):
    page.goto(server)
    form = page.locator("#new-game-form")
    form.wait_for()
    form.locator("input[name=mode][value=people]").check()
    field = form.locator("input[name=position]")
    field.fill("not a position")
    page.wait_for_function("() => document.getElementById('position-message').dataset.tone === 'error'")
    line = page.locator("#position-message").inner_text()
    assert line.startswith("Not a position") and "\n" not in line
    page.click("#start-button")
    page.wait_for_function("() => document.getElementById('new-game-message').dataset.tone === 'error'")
    assert "\n" not in page.locator("#new-game-message").inner_text()
    assert page.locator("#new-game-dialog").get_attribute("open") is not None
    field.fill(POSITION)
    page.wait_for_function("() => document.getElementById('position-message').dataset.tone === 'good'")
    page.click("#start-button")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    state = api(server, "GET", f"api/games/{page.evaluate('document.body.dataset.game')}")
    assert state["board"]["position"] == POSITION and state["start"] == POSITION
    assert board_marbles(page, "play") == api_marbles(state["board"])


def test_analysis_of_a_finished_game_marks_the_mistake(page, server):
    body = {"black": "human", "white": "human", "position": POSITION, "win_threshold": 1}
    state = api(server, "POST", "api/games", body)
    api(server, "POST", f"api/games/{state['id']}/moves", {"move": "a3b4"})  # the mistake
    state = api(server, "POST", f"api/games/{state['id']}/moves", {"move": "d4c4"})  # pushed off: White wins
    assert state["outcome"]["winner"] == "white"
    page.goto(f"{server}#game={state['id']}")
    wait_for_state(page, "over")
    link = page.locator("#analyse-link")
    link.wait_for(state="visible")  # once the game is in the archive
    link.click()
    page.locator("#replay-view").wait_for()
    page.wait_for_function("() => document.getElementById('replay-view').dataset.analysed === '3'")
    page.wait_for_function("() => !document.getElementById('analysis-status').textContent.startsWith('Analysing')")
    assert page.get_attribute("#analysis-graph", "data-points") == "3"
    # the graph's axis is in this board's marbles: one marble wins here, so from +1 to -1
    assert page.locator("#analysis-axis span").all_inner_texts() == ["+1", "0", "−1"]
    assert page.locator("#analysis-graph .graph-mistake").count() == 1
    mistakes = page.locator("#replay-moves .move.mistake")
    assert mistakes.all_inner_texts() == ["a3b4"]
    # the command line's verdicts: walking into a lost game is a blunder, not "lost 2.0 marbles" or 10
    assert mistakes.first.get_attribute("title").startswith("Blunder: walks into a lost game")
    listed = page.locator("#analysis-mistakes li")
    assert listed.count() == 1 and listed.first.get_attribute("data-verdict") == "blunder"
    assert "a3b4 blunder: Black walks into a lost game" in listed.first.inner_text()
    assert "1 blunder" in page.locator("#analysis-status").inner_text()
    # the list is shown whole: no box of its own that hides what does not fit
    shown = page.eval_on_selector(
        "#analysis-mistakes",
        "l => [getComputedStyle(l).maxHeight, getComputedStyle(l).overflowY, l.scrollHeight <= l.clientHeight]",
    )
    assert shown == ["none", "visible", True]
    # a mistake in the list goes to its position
    page.locator("#analysis-mistakes button").first.click()
    assert page.get_attribute("#replay-view", "data-ply") == "1"


def test_replay_keys_without_a_click_and_no_dialog_over_the_archive(page, server):
    page.goto(server)
    page.locator("#new-game-form").wait_for()  # opened on a first visit
    page.evaluate("location.hash = '#archive'")
    page.locator("#archive-view").wait_for()
    page.wait_for_function("() => !document.getElementById('new-game-dialog').open")
    page.wait_for_function("() => document.querySelectorAll('#archive-table tbody tr').length > 0")
    stored = api(server, "GET", f"api/archive?player=seed={SEEDED}")["games"][0]  # a long random game
    stored_id, last = stored["id"], stored["plies"]
    page.evaluate(f"location.hash = '#replay={stored_id}'")
    page.wait_for_function(f"() => document.getElementById('replay-view').dataset.ply === '{min(last, 5000)}'")
    page.keyboard.press("ArrowLeft")  # no click anywhere first
    assert page.get_attribute("#replay-view", "data-ply") == str(last - 1)
    page.keyboard.press("Home")
    assert page.get_attribute("#replay-view", "data-ply") == "0"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#replay-view", "data-ply") == "1"


def test_a_phone_page_does_not_scroll_itself_after_a_move(page, server):
    page.set_viewport_size({"width": 390, "height": 844})
    state = api(server, "POST", "api/games", {"black": "human", "white": "random:seed=2", "layout": "mini"})
    page.goto(f"{server}#game={state['id']}")
    for _ in range(6):
        page.wait_for_function(YOUR_TURN_OR_OVER)
        current = api(server, "GET", f"api/games/{state['id']}")
        if current["outcome"]:
            break
        legal = api(server, "GET", f"api/games/{state['id']}/legal")
        assert page.evaluate("window.scrollY") == 0
        click_move(page, choose(legal, current["board"]), legal)
        page.wait_for_function(
            f"() => Number(document.getElementById('play-view').dataset.ply) >= {current['ply'] + 2}"
            " || document.getElementById('play-view').dataset.state === 'over'"
        )
        page.wait_for_timeout(100)
        assert page.evaluate("window.scrollY") == 0, "the page scrolled after a move"
    # the move list below the board shows its last move within itself
    assert page.locator("#play-moves .move.current").count() == 1


# --------------------------------------------------------------------------- the archive on a phone
def test_the_archive_on_a_phone_shows_every_column_and_a_tap_opens_the_game(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    context.add_init_script(f"localStorage.setItem('sumito-token', {json.dumps(TOKEN)})")
    page = context.new_page()
    page.set_default_timeout(STATE_WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{server}#archive")
        page.fill("#archive-filters input[name=player]", f"seed={SEEDED}")
        page.click("#archive-filters button[type=submit]")
        page.wait_for_function(
            """(seed) => {
                const rows = [...document.querySelectorAll('#archive-table tbody tr')];
                return rows.length === 2 && rows.every((row) => row.textContent.includes(seed));
            }""",
            arg=f"seed={SEEDED}",
        )
        # nothing wider than the phone: no sideways scroll of the page or of the archive's box
        widths = page.evaluate(
            """() => [document.documentElement.scrollWidth, document.querySelector('.table-wrap').scrollWidth,
                      document.querySelector('.table-wrap').clientWidth]"""
        )
        assert widths[0] <= 390 and widths[1] <= widths[2], widths
        games = {g["id"]: g for g in api(server, "GET", f"api/archive?player=seed={SEEDED}")["games"]}
        # the game whose Black is the match's unseeded "random": the match gave it a seed of its own
        (game,) = [g for g in games.values() if g["names"]["black"] == "random"]
        row = page.locator(f"#archive-table tbody tr[data-id='{game['id']}']")
        cells = row.locator("td")
        row.scroll_into_view_if_needed()
        # every column of the card in sight, with its label and its value
        heads = "ths => ths.map(t => t.dataset.label ?? t.textContent)"
        labels = page.eval_on_selector_all("#archive-table thead th", heads)
        for column in range(cells.count()):
            box = cells.nth(column).bounding_box()
            assert box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= 390, (column, box)
            assert box["y"] >= 0 and box["y"] + box["height"] <= 844, (column, box)  # the viewport's own coordinates
            label = cells.nth(column).evaluate("c => getComputedStyle(c, '::before').content")
            assert label == (f'"{labels[column]}"' if labels[column] else '""')
        texts = cells.all_inner_texts()
        # the names without the match's seeds, and the marbles each side pushed off (Black's first)
        assert game["black"] != game["names"]["black"] and "seed=" in game["black"]
        assert game["names"]["black"] in texts[2] and game["names"]["white"] in texts[3]
        assert f"{game['lost']['white']}–{game['lost']['black']}" in texts[6]
        assert game["result"] in texts[5] and game["reason"] in texts[7]
        cells.nth(5).tap()  # the card, not its Replay button
        page.wait_for_function(f"() => document.getElementById('replay-view').dataset.ply === '{game['plies']}'")
        assert f"#replay={game['id']}" in page.url and not page.locator("#replay-view").is_hidden()
        assert page.locator("#replay-title").inner_text().startswith(f"Game {game['id']}")
    finally:
        context.close()
    assert not errors, f"the page logged errors: {errors}"


# --------------------------------------------------------------------------- the page on a laptop and a phone
def test_a_message_does_not_outlive_the_game_it_was_about(screen, server):
    # a tap while the computer (White) thinks is explained in red, and the game's end (Black resigns while White
    # still thinks: it has 30 s, and after Black's a1b2 no push-off, so neither its move nor the game's end comes
    # before the tap, however loaded the machine) takes that message away
    body = {"black": "human", "white": "engine:time=30,nnue=builtin-nnue", "position": POSITION, "win_threshold": 1}
    state = api(server, "POST", "api/games", body)
    page = screen
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    legal = api(server, "GET", f"api/games/{state['id']}/legal")
    click_move(page, next(m for m in legal if m["notation"] == "a1b2"), legal)
    wait_for_state(page, "thinking")
    press(cell(page, "a3"))
    assert "Not your turn" in message(page)
    assert page.get_attribute("#play-message", "data-tone") == "error"
    api(server, "POST", f"api/games/{state['id']}/resign", {"side": "black"})
    wait_for_state(page, "over")
    assert "White (" in page.locator("#play-status").inner_text()
    assert message(page) == ""
    # a message about the finished game does not follow into the next one
    press(cell(page, "a1"))
    assert "The game is over" in message(page)
    press(page.locator("#rematch-button"))
    page.wait_for_function(f"() => document.body.dataset.game && document.body.dataset.game !== '{state['id']}'")
    assert message(page) == ""


def in_sight(page, selector: str) -> bool:
    """Whether the whole of what `selector` picks is inside the viewport."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] >= 0 and (
        box["x"] + box["width"] <= size["width"]
    )


def test_the_move_box_is_for_a_player_with_a_keyboard(screen, server):
    page = screen
    state = api(server, "POST", "api/games", {"black": "human", "white": "greedy", "layout": "standard"})
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    # a touch screen plays by taps: no move box, and the engine's help in sight without a scroll
    assert page.locator("#move-form").is_visible() == (not touch(page))
    assert page.evaluate("window.scrollY") == 0
    for control in ("#hint-button", "#eval-toggle", "#flip-button"):
        assert in_sight(page, control), control
    # a spectator has no move to type
    body = {"black": "greedy", "white": "random:seed=3", "layout": "mini", "speed": 0.3}
    watched = api(server, "POST", "api/games", body)
    page.goto(f"{server}#game={watched['id']}")
    page.wait_for_function(f"() => document.body.dataset.game === '{watched['id']}'")
    assert page.locator("#move-form").is_hidden()


def test_the_hint_and_the_analysis_keep_the_board_in_sight(screen, server):
    page = screen
    state = api(server, "POST", "api/games", {"black": "human", "white": "random:seed=4", "layout": "standard"})
    page.goto(f"{server}#game={state['id']}")
    page.wait_for_function(YOUR_TURN_OR_OVER)
    # a marble selected first: its help takes two lines on a phone, and the Hint button stays in reach
    legal = api(server, "GET", f"api/games/{state['id']}/legal")
    press(cell(page, next(m for m in legal if len(m["marbles"]) == 1)["marbles"][0]))
    assert message(page).startswith("Selected")
    press(page.locator("#hint-button"))
    # the first hint of a fresh install compiles the engine's search in the server (30 s and more on a fresh
    # cache of two cores): the bound is for a hung server, not for the compile
    page.wait_for_function("() => document.getElementById('play-view').dataset.hint")
    assert in_sight(page, "#play-board svg")

    body = {"black": "human", "white": "human", "position": POSITION, "win_threshold": 1}
    state = api(server, "POST", "api/games", body)
    api(server, "POST", f"api/games/{state['id']}/moves", {"move": "a3b4"})
    api(server, "POST", f"api/games/{state['id']}/moves", {"move": "d4c4"})
    page.goto(f"{server}#game={state['id']}")
    link = page.locator("#analyse-link")
    link.wait_for(state="visible")
    press(link)
    page.wait_for_function("() => document.getElementById('replay-view').dataset.analysed === '3'")
    assert in_sight(page, "#replay-board svg")
    # a mistake picked in the list shows on a board in sight (on a phone the list is below the board)
    press(page.locator("#analysis-mistakes button").first)
    assert page.get_attribute("#replay-view", "data-ply") == "1"
    assert in_sight(page, "#replay-board svg")


def test_the_analysis_labels_a_move_by_its_loss_as_shown(screen, server):
    # a stored game of six moves, with an analysis made up for it (page.route answers for the
    # server): its scores put the losses just either side of the thresholds, as shown
    state = api(server, "POST", "api/games", {"black": "human", "white": "human", "layout": "mini"})
    for _ in range(6):
        legal = api(server, "GET", f"api/games/{state['id']}/legal")
        state = api(server, "POST", f"api/games/{state['id']}/moves", {"move": legal[0]["notation"]})
    state = api(server, "POST", f"api/games/{state['id']}/resign", {"side": "black"})
    for _ in range(50):
        if state["archive_id"]:
            break
        time.sleep(0.2)
        state = api(server, "GET", f"api/games/{state['id']}")
    moves = state["moves"]
    # Black's score after each ply; (ply, White's forced win in N plies) where there is one
    black = [0.5, 0.2039, 0.4988, -1.9, -1.9, -2.0, -1.95]
    forced = {5: 3}
    positions = [
        {
            "ply": ply, "played": moves[ply] if ply < len(moves) else None, "to_move": ("black", "white")[ply % 2],
            "best": "a1a2", "black": score, "score": score if ply % 2 == 0 else -score,
            "win_in": forced.get(ply), "depth": 3, "pv": [], "exact": None,
        }
        for ply, score in enumerate(black)
    ]
    positions[3]["best"] = positions[3]["played"]  # White's own choice: no verdict

    def answer(route):
        asked = json.loads(route.request.post_data or "{}")
        start = asked.get("start", 0)
        page_ = {"start": start, "seconds": 0.2, "total": len(positions), "thresholds": dict(THRESHOLDS),
                 "positions": positions[start : start + asked.get("count", 10)]}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(page_))

    page = screen
    page.route("**/api/archive/*/analysis", answer)
    page.goto(f"{server}#replay={state['archive_id']}&analyse")
    page.wait_for_function("() => document.getElementById('replay-view').dataset.analysed === '7'")
    listed = page.locator("#analysis-mistakes li")
    verdicts = dict(zip(listed.locator("button").evaluate_all("bs => bs.map(b => Number(b.dataset.ply))"),
                        listed.evaluate_all("ls => ls.map(l => [l.dataset.verdict, l.textContent])")))
    # a loss shown as 0.30 is a mistake, 0.29 an inaccuracy; walking into a lost game or letting a
    # won one go is a blunder, however little the score moved
    expected = {1: ("mistake", "Black loses 0.30 marbles"), 2: ("inaccuracy", "White loses 0.29 marbles"),
                3: ("blunder", "Black loses 2.40 marbles"), 5: ("blunder", "Black walks into a lost game"),
                6: ("blunder", "White lets a won game go")}
    assert sorted(verdicts) == sorted(expected)
    for ply, (verdict, words) in expected.items():
        assert verdicts[ply][0] == verdict and words in verdicts[ply][1], (ply, verdicts[ply])
    title = page.locator("#replay-moves .move.mistake[data-ply='5']").get_attribute("title")
    assert title.startswith("Blunder: walks into a lost game")
    assert "3 blunders, 1 mistake, 1 inaccuracy" in page.locator("#analysis-status").inner_text()
