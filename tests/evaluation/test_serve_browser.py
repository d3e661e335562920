"""``checkers serve`` in a real browser: headless Chromium from the distribution's packages
(``chromium`` and ``chromium-driver``), driven by Selenium. Nothing is downloaded: without
those packages every test here skips with one reason line (``.ci/run`` installs them).

The README's pictures of the page are this file's screenshots (``serve.png``, the desktop;
``serve-phone.png``, a phone's width; ``serve-setup.png``, setting up a position): run it with
``CHECKERS_SERVE_SCREENSHOTS=docs/images`` to take them again (without that variable they
go to a temporary folder, so a test run leaves the work tree as it was)."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="checkers serve needs the serve extra (starlette, uvicorn)")
selenium = pytest.importorskip("selenium", reason="browser tests need selenium (pip install -e '.[test]')")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from checkers_env import Board  # noqa: E402
from checkers_evaluation import serve  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver",)


def _installed(names) -> str | None:
    return next((path for path in map(shutil.which, names) if path), None)


def _live_server(app):
    spec = importlib.util.spec_from_file_location("serve_conftest", Path(__file__).with_name("conftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LiveServer(app)


@pytest.fixture(scope="module")
def browser():
    chromium, driver = _installed(BROWSERS), _installed(DRIVERS)
    if chromium is None or driver is None:
        pytest.skip(
            "browser tests need Chromium and its driver from the distribution "
            "(apt-get install chromium chromium-driver; .ci/run installs them)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1200,900",
        "--disable-extensions",
    ):
        options.add_argument(argument)
    # An explicit driver path: Selenium Manager is never asked to download anything.
    chrome = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    chrome.set_page_load_timeout(30)
    try:
        yield chrome
    finally:
        chrome.quit()


@pytest.fixture(scope="module")
def site(tiny_league, egdb4):
    server = serve.Server(leagues=[tiny_league], workers=2, think_limit=5.0, egdb=egdb4)
    with _live_server(serve.create_app(server)) as live:
        yield live


def _wait(browser, condition, seconds=20):
    return WebDriverWait(browser, seconds, poll_frequency=0.05).until(lambda _: condition())


def _open(browser, site):
    browser.get(site.url + "/")
    _wait(browser, lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    _wait(browser, lambda: _state_text(browser).startswith(("black to move", "white to move")))


def _state_text(browser) -> str:
    return browser.find_element(By.ID, "status").text


def _click_square(browser, board_id: str, square: int) -> None:
    # The topmost element on the square: the piece if there is one, else the square itself.
    elements = browser.find_elements(By.CSS_SELECTOR, f"#{board_id} [data-square='{square}']")
    elements[-1].click()


def _moves(browser) -> list[str]:
    return [line for line in browser.execute_script("return game.moves")]


def _screenshot(browser, folder: Path, name: str) -> None:
    path = Path(os.environ.get("CHECKERS_SERVE_SCREENSHOTS") or folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(path)) and path.stat().st_size > 10_000


def _new_game(browser, opponent="greedy", color="black", fen=None):
    """A new game against ``opponent``: chosen from the list when it is there, else typed."""
    choice = Select(browser.find_element(By.ID, "opponent-choice"))
    if opponent in [option.get_attribute("value") for option in choice.options]:
        choice.select_by_value(opponent)
    else:
        choice.select_by_value("other")
        field = browser.find_element(By.ID, "opponent")
        field.clear()
        field.send_keys(opponent)
    Select(browser.find_element(By.ID, "color")).select_by_value(color)
    if fen is not None:
        Select(browser.find_element(By.ID, "start-kind")).select_by_value("fen")
        box = browser.find_element(By.ID, "fen-input")
        box.clear()
        box.send_keys(fen)
    else:
        Select(browser.find_element(By.ID, "start-kind")).select_by_value("start")
    old = browser.execute_script("return game && game.id")
    browser.find_element(By.ID, "new-game").click()
    _wait(
        browser,
        lambda: browser.execute_script(
            "return game !== null && game.id !== arguments[0] && !busy && (game.over || game.to_move === 'human')", old
        ),
    )


def _play(browser, path: list[int]) -> None:
    plies = len(_moves(browser))
    for square in path:
        _click_square(browser, "board", square)
    _wait(browser, lambda: browser.execute_script("return !busy") and len(_moves(browser)) > plies)


def test_a_whole_game_played_by_clicks(browser, site):
    _open(browser, site)
    _new_game(browser, opponent="random")
    for _ in range(200):  # bounded: the rules end every game within 400 plies
        if browser.execute_script("return game.over"):
            break
        move = browser.execute_script("return game.legal[0].path")  # the first legal move, clicked square by square
        _play(browser, move)
    assert browser.execute_script("return game.over")
    assert _state_text(browser).startswith("Game over")
    pdn = browser.find_element(By.ID, "pdn").get_attribute("value")
    assert '[Black "human"]' in pdn and '[White "random"]' in pdn
    result = browser.execute_script("return game.result")
    assert pdn.rstrip().endswith(result)


def test_a_multi_jump_square_by_square(browser, site):
    _open(browser, site)
    _new_game(browser, opponent="greedy", fen="B:W14,23,32:B9")
    marked = browser.find_elements(By.CSS_SELECTOR, "#board rect.square.forced")
    assert [e.get_attribute("data-square") for e in marked] == ["9"]  # the forced capture is shown
    _click_square(browser, "board", 9)
    _click_square(browser, "board", 18)
    assert "Keep jumping" in browser.find_element(By.ID, "message").text
    targets = browser.find_elements(By.CSS_SELECTOR, "#board rect.square.target")
    assert [e.get_attribute("data-square") for e in targets] == ["27"]
    _click_square(browser, "board", 27)
    _wait(browser, lambda: len(_moves(browser)) >= 1 and not browser.execute_script("return busy"))
    assert _moves(browser)[0] == "9x18x27"


def test_an_illegal_click_is_refused(browser, site):
    _open(browser, site)
    _new_game(browser)
    _click_square(browser, "board", 1)  # a back-rank man that cannot move
    message = browser.find_element(By.ID, "message")
    assert "Illegal" in message.text and "refused" in message.get_attribute("class")
    _click_square(browser, "board", 11)
    _click_square(browser, "board", 19)  # not a landing square of 11
    assert "Illegal" in message.text
    assert _moves(browser) == []


def test_take_back(browser, site):
    _open(browser, site)
    _new_game(browser, opponent="greedy")
    _play(browser, [11, 15])
    _wait(browser, lambda: len(_moves(browser)) == 2)
    browser.find_element(By.ID, "takeback").click()
    _wait(browser, lambda: _moves(browser) == [] and "Took back" in browser.find_element(By.ID, "message").text)
    assert browser.find_element(By.ID, "fen").get_attribute("value").startswith("B:")


def test_playing_white_the_agent_opens(browser, site, tmp_path):
    _open(browser, site)
    _new_game(browser, opponent="alphabeta:depth=2", color="white")
    assert len(_moves(browser)) == 1
    assert "alphabeta:depth=2" in browser.find_element(By.ID, "reply").text
    assert "depth 2" in browser.find_element(By.ID, "engine").text
    # The page's own screenshot for the README: a game under way against alpha-beta.
    _play(browser, browser.execute_script("return game.legal[0].path"))
    _click_square(browser, "board", browser.execute_script("return game.legal[0].path[0]"))
    _screenshot(browser, tmp_path, "serve.png")


def test_a_watched_game(browser, site):
    _open(browser, site)
    browser.find_element(By.ID, "tab-watch").click()
    browser.execute_script("document.getElementById('watch-delay').value = 0")
    browser.find_element(By.ID, "watch-start").click()
    _wait(browser, lambda: "Game over" in browser.find_element(By.ID, "watch-status").text, 60)
    pdn = browser.find_element(By.ID, "watch-pdn").get_attribute("value")
    assert '[Black "greedy"]' in pdn and '[White "random"]' in pdn
    assert browser.find_element(By.CSS_SELECTOR, "#watch-board svg")


def test_a_league_game_replayed(browser, site, tiny_league):
    import json

    first = json.loads((tiny_league / "games.jsonl").read_text().splitlines()[1])
    _open(browser, site)
    browser.find_element(By.ID, "tab-league").click()
    _wait(browser, lambda: browser.find_elements(By.ID, "game-row-1"))
    assert "greedy" in browser.find_element(By.ID, "ratings").text
    assert browser.find_element(By.ID, "heatmap").get_attribute("naturalWidth") != "0"
    browser.find_element(By.ID, "game-row-1").click()
    status = browser.find_element(By.ID, "replay-status")
    _wait(browser, lambda: "ply 0 of" in status.text)
    browser.find_element(By.ID, "replay-next").click()
    _wait(browser, lambda: f"ply 1 of {len(first['moves'])}, last move {first['moves'][0]}" in status.text)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    _wait(browser, lambda: f"last move {first['moves'][1]}" in status.text)
    body.send_keys(Keys.ARROW_LEFT)
    _wait(browser, lambda: "ply 1 of" in status.text)
    browser.find_element(By.ID, "replay-last").click()
    _wait(browser, lambda: first["result"] in status.text)


def _status(browser) -> str:
    return browser.find_element(By.ID, "status").text


def test_opponents_from_the_list_with_their_ratings(browser, site):
    _open(browser, site)
    choice = Select(browser.find_element(By.ID, "opponent-choice"))
    labels = {option.get_attribute("value"): option.text for option in choice.options}
    assert labels["alphabeta:depth=6"].startswith("alphabeta:depth=6: Elo ")
    assert labels["alphabeta:time=0.5"] == "alphabeta:time=0.5: unrated"
    assert labels["zoo:td-minimax"].startswith("td-minimax (zoo:td-minimax): Elo ")
    assert "other" in labels and browser.find_element(By.ID, "opponent-label").get_attribute("hidden")
    groups = [
        group.get_attribute("label") for group in browser.find_elements(By.CSS_SELECTOR, "#opponent-choice optgroup")
    ]
    assert groups == ["Baselines", "The zoo"]
    _new_game(browser, opponent="alphabeta:depth=2", color="white")
    assert browser.execute_script("return game.black") == "alphabeta:depth=2"
    # The typed spec stays, as the last option.
    _new_game(browser, opponent="alphabeta:depth=1")
    assert browser.execute_script("return game.white") == "alphabeta:depth=1"
    assert browser.find_element(By.ID, "opponent-label").get_attribute("hidden") is None


def test_the_engine_evaluation_bar_depth_and_line(browser, site):
    _open(browser, site)
    _new_game(browser, opponent="alphabeta:depth=4", color="white")
    bar = browser.find_element(By.ID, "eval-bar")
    assert bar.is_displayed()
    share = browser.execute_script("return game.replies[0].evaluation.black")
    _wait(
        browser,
        lambda: abs(browser.find_element(By.ID, "eval-black").size["height"] / bar.size["height"] - share) < 0.05,
    )
    engine = browser.find_element(By.ID, "engine").text
    move = _moves(browser)[0]
    assert "for Black" in engine and "depth 4" in engine and f"line {move}" in engine, engine


def test_the_move_list_and_its_navigation(browser, site):
    _open(browser, site)
    _new_game(browser, opponent="greedy")
    _play(browser, [11, 15])
    _wait(browser, lambda: len(_moves(browser)) == 2 and not browser.execute_script("return busy"))
    moves = _moves(browser)
    plies = browser.find_elements(By.CSS_SELECTOR, "#move-list button[data-ply]")
    assert [p.text for p in plies] == moves and "current" in plies[-1].get_attribute("class")
    plies[0].click()
    _wait(browser, lambda: _status(browser).startswith("Ply 1 of 2, after 11-15"))
    assert browser.find_element(By.ID, "fen").get_attribute("value").startswith("W:")
    _click_square(browser, "board", 22)  # an earlier position is read-only
    assert "earlier position" in browser.find_element(By.ID, "message").text and _moves(browser) == moves
    browser.find_element(By.ID, "nav-first").click()
    _wait(browser, lambda: _status(browser).startswith("Ply 0 of 2, the start"))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    _wait(browser, lambda: _status(browser).startswith("Ply 1 of 2"))
    browser.find_element(By.ID, "nav-next").click()
    _wait(browser, lambda: _status(browser).startswith("black to move"))  # the last ply: the game as it is now
    browser.find_element(By.ID, "nav-prev").click()
    _wait(browser, lambda: _status(browser).startswith("Ply 1 of 2"))
    browser.find_element(By.ID, "nav-last").click()
    _wait(browser, lambda: _status(browser).startswith("black to move"))
    _play(browser, browser.execute_script("return game.legal[0].path"))  # and play on


def test_the_endgame_verdict(browser, site):
    _open(browser, site)
    _new_game(browser, opponent="greedy", fen="B:W14,23:B9")
    verdict = browser.find_element(By.ID, "egdb").text
    assert verdict == "Endgame database: Black wins in 1 plies with best play (exact, 4-piece database)"
    _new_game(browser, opponent="greedy")
    assert browser.find_element(By.ID, "egdb").text == ""  # 24 pieces: outside the database


def test_flip_the_board(browser, site):
    _open(browser, site)
    _new_game(browser, opponent="greedy")
    board = browser.find_element(By.ID, "board")
    before = browser.find_element(By.CSS_SELECTOR, "#board rect.square[data-square='11']").location
    browser.find_element(By.ID, "flip").click()
    assert "flipped" in board.get_attribute("class")
    after = browser.find_element(By.CSS_SELECTOR, "#board rect.square[data-square='11']").location
    assert after["y"] < before["y"]  # Black's side now at the top
    _play(browser, [11, 15])  # clicks still name the squares
    assert _moves(browser)[0] == "11-15"
    browser.find_element(By.ID, "flip").click()
    assert "flipped" not in board.get_attribute("class")


def test_a_phone_sized_window(browser, site, tmp_path):
    browser.set_window_size(390, 844)
    try:
        _open(browser, site)
        _new_game(browser, opponent="alphabeta:depth=2", color="white")
        width = browser.execute_script("return document.documentElement.clientWidth")  # less the scroll bar
        _play(browser, browser.execute_script("return game.legal[0].path"))
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width  # no sideways scrolling
        board = browser.find_element(By.ID, "board")
        assert board.rect["x"] >= 0 and board.rect["x"] + board.rect["width"] <= width
        side = browser.find_element(By.CSS_SELECTOR, "#panel-play .side")
        assert side.rect["y"] >= board.rect["y"] + board.rect["height"]  # one column: the controls below the board
        browser.execute_script("window.scrollTo(0, 0)")
        _screenshot(browser, tmp_path, "serve-phone.png")
    finally:
        browser.set_window_size(1200, 900)


def test_setting_up_a_position_by_clicking(browser, site, tmp_path):
    _open(browser, site)
    Select(browser.find_element(By.ID, "start-kind")).select_by_value("setup")
    _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg.setup-board"))
    fen = browser.find_element(By.ID, "fen")
    assert fen.get_attribute("value") == Board().fen()  # it starts from the position on the board
    browser.find_element(By.ID, "setup-clear").click()
    assert fen.get_attribute("value") == "B:W:B"
    for square, clicks in ((9, 1), (14, 3), (23, 3), (32, 4), (1, 2)):
        for _ in range(clicks):
            _click_square(browser, "board", square)
    assert fen.get_attribute("value") == "B:W14,23,K32:BK1,9"
    _click_square(browser, "board", 1)
    _click_square(browser, "board", 1)
    _click_square(browser, "board", 1)  # the king cycles on: white man, white king, empty
    assert fen.get_attribute("value") == "B:W14,23,K32:B9"
    Select(browser.find_element(By.ID, "setup-turn")).select_by_value("W")
    assert fen.get_attribute("value") == "W:W14,23,K32:B9"
    Select(browser.find_element(By.ID, "setup-turn")).select_by_value("B")
    _screenshot(browser, tmp_path, "serve-setup.png")
    Select(browser.find_element(By.ID, "opponent-choice")).select_by_value("greedy")
    old = browser.execute_script("return game.id")
    browser.find_element(By.ID, "new-game").click()
    _wait(browser, lambda: browser.execute_script("return game.id !== arguments[0] && !busy", old))
    assert browser.execute_script("return game.start_fen") == Board.from_fen("B:W14,23,K32:B9").fen()
    assert _moves(browser) == [] and browser.execute_script("return game.to_move") == "human"
    assert browser.find_element(By.CSS_SELECTOR, "#board rect.square.forced").get_attribute("data-square") == "9"
    assert Select(browser.find_element(By.ID, "start-kind")).first_selected_option.get_attribute("value") == "start"
