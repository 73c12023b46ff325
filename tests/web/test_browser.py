"""``duel serve`` in a real browser: Debian's chromium, headless, driven by Playwright.

The tests fill each system's forms, check that the numbers the page shows are the ones
``duel ... --json`` gives for the same duel, play a duel to its end, upload a profile
and a ruleset, and save a screenshot of every page (laptop and tablet sizes) under the
test's temporary directory. Without the browser they fail, saying how to install it."""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time

import pytest

import envs

from .helpers import cli_json, small_argv

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
#: the window sizes looked at: a laptop and a tablet held upright
SIZES = {"laptop": (1366, 768), "tablet": (820, 1180)}
SYSTEMS = ("falkenstein", "blooded", "pathfinder", "uchronia")
#: the longest wait for an answer (a first question starts the worker processes)
WAIT_MS = 60_000


def chromium_path() -> str:
    found = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if found is None:
        pytest.fail("the browser tests need Debian's chromium at /usr/bin/chromium: "
                    "apt-get install -y chromium")
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``duel serve``'s app on a free port of this machine, for the module's tests."""
    import uvicorn

    from agents.web.app import create_app
    os.environ["DUEL_CACHE_DIR"] = str(tmp_path_factory.mktemp("answers"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(directory=tmp_path_factory.mktemp("server")),
                            host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    while not running.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    path = chromium_path()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=dict(zip(("width", "height"), SIZES["laptop"],
                                                    strict=True)))
    opened = context.new_page()
    opened.set_default_timeout(WAIT_MS)
    yield opened
    context.close()


def screenshots(page, tmp_path, name: str) -> None:
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")   # the sticky header at the top of the shot
        page.screenshot(path=str(tmp_path / f"{name}-{size}.png"), full_page=True)
    page.set_viewport_size(dict(zip(("width", "height"), SIZES["laptop"], strict=True)))


def fill_duel(page, system: str) -> None:
    """Every field of the example duel typed into the form (after clearing it)."""
    spec = envs.spec(system)
    examples = spec.examples
    page.click("details.options summary")   # the options are folded away at first
    for control in page.query_selector_all("form#ask [data-kind]"):
        if control.get_attribute("type") == "checkbox":   # a box "empty" shows what is kept
            control.set_checked(control.get_attribute("data-kept") == "true")
        elif control.evaluate("c => c.tagName") == "SELECT":
            control.select_option("")
        else:
            control.fill("")
    for side, text in (("a", examples.sheet_a), ("b", examples.sheet_b)):
        for name, value in spec.sheet.parse(text).items():
            set_field(page, f"{side}.{name}", value)
    for name, value in examples.quick.items():
        set_field(page, f"options.{name}", value)


def set_field(page, name: str, value) -> None:
    control = page.locator(f'form#ask [name="{name}"]')
    if control.get_attribute("type") == "checkbox":
        control.check()
    elif control.evaluate("c => c.tagName") == "SELECT":
        control.select_option(str(value))
    else:
        control.fill(str(value))


def set_range(page, name: str, value: str) -> None:
    """A slider moved to ``value`` as a hand moves it (its ``input`` event fired)."""
    page.locator(f'input[name="{name}"]').evaluate(
        "(slider, value) => { slider.value = value; "
        "slider.dispatchEvent(new Event('input', {bubbles: true})); }", value)
    assert page.locator(f'output[data-of="{name}"]').inner_text() == value


def shown_bars(page, within: str = "#answer") -> dict[str, str]:
    rows = page.locator(f"{within} .bar-row")
    return {rows.nth(k).locator(".label").inner_text(): rows.nth(k).locator(".number")
            .inner_text() for k in range(rows.count())}


def percent(p: float) -> str:
    return f"{100 * p:.2f}%"


@pytest.mark.parametrize("system", SYSTEMS)
def test_duel_page_shows_the_cli_numbers(server, page, tmp_path, system):
    page.goto(f"{server}/duel?system={system}")
    fill_duel(page, system)
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer .heatmap")
    expected = cli_json(["solve", *small_argv(system)])
    bars = shown_bars(page, "#answer .odds")
    assert bars == {"A wins": percent(expected["win"]), "draw": percent(expected["draw"]),
                    "B wins": percent(expected["loss"])}
    endings = shown_bars(page, "#answer .endings")
    assert endings == {label: percent(p) for label, p in expected["endings"].items()}
    assert expected["situation"]["a"] in page.inner_text("#answer")
    screenshots(page, tmp_path, f"duel-{system}")


def test_a_reference_sheet_shows_its_values_and_a_cleared_box_is_played(server, page,
                                                                        tmp_path):
    page.goto(f"{server}/duel?system=pathfinder")
    page.select_option('form#ask [name="b.sheet"]', "none")
    field = lambda name: page.locator(f'form#ask [name="b.{name}"]')   # noqa: E731
    assert (field("hp").get_attribute("placeholder"), field("agile").is_checked()) == ("20", False)
    page.select_option('form#ask [name="b.sheet"]', "rogue")
    # the spec's rogue: HP 17, +7 for 1d6+4, a shortsword (agile, finesse), no shield
    assert field("hp").get_attribute("placeholder") == "17"
    assert field("attack").get_attribute("placeholder") == "7"
    assert field("damage").get_attribute("placeholder") == "1d6+4"
    assert field("agile").is_checked() and field("finesse").is_checked()
    assert not field("shield").is_checked()
    field("hp").fill("6")
    field("agile").uncheck()
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer .heatmap")
    argv = small_argv("pathfinder")   # the page's example duel, B changed as above
    b = argv.index("--b") + 1
    expected = cli_json(["solve", *argv[:b], "rogue,hp=6,agile=false", *argv[b + 1:]])
    agile = cli_json(["solve", *argv[:b], "rogue,hp=6", *argv[b + 1:]])
    assert expected["win"] != agile["win"]
    assert shown_bars(page, "#answer .odds")["A wins"] == percent(expected["win"])
    screenshots(page, tmp_path, "duel-reference-sheet")


def test_what_if_asks_about_another_moment(server, page, tmp_path):
    page.goto(f"{server}/duel?system=falkenstein")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("form.whatif")
    page.fill('form.whatif [name="round"]', "2")
    page.click("form.whatif button[type=submit]")
    page.wait_for_function("document.querySelector('form.whatif [name=round]')"
                           " && document.querySelector('form.whatif [name=round]').value"
                           " === '2' && !document.querySelector('#ask button').disabled")
    expected = cli_json(["solve", *small_argv("falkenstein"), "--state",
                         ",".join(f"{k}={v}" for k, v in _start_state().items())])
    assert shown_bars(page, "#answer .odds")["A wins"] == percent(expected["win"])
    screenshots(page, tmp_path, "duel-what-if")


def _start_state() -> dict:
    document = cli_json(["solve", *small_argv("falkenstein")])
    return dict(document["state"], round=2)


def test_a_bad_field_is_marked_with_the_cli_line(server, page, tmp_path):
    page.goto(f"{server}/duel?system=pathfinder")
    page.fill('form#ask [name="a.hp"]', "-3")
    page.click("form#ask button[type=submit]")
    marked = page.locator('.error[data-for="a.hp"]')
    marked.wait_for()
    assert marked.inner_text() == "a's hp takes integer 1..999, got -3"
    assert "bad" in page.locator('form#ask [name="a.hp"]').get_attribute("class")
    screenshots(page, tmp_path, "duel-bad-field")


def test_opponent_page_against_an_uploaded_profile(server, page, tmp_path):
    profile = tmp_path / "cautious.json"
    cli_json(["train", *small_argv("falkenstein"), "--personality", "cautious",
              "--out", str(profile)])
    page.goto(f"{server}/opponent?system=falkenstein")
    page.check('input[name="vs_kind"][value="profile"]')
    page.set_input_files('input[name="vs_profile"]', str(profile))
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer table.plan")
    expected = cli_json(["odds", *small_argv("falkenstein"), "--vs", str(profile)])
    first = shown_bars(page, "#answer .best")
    second = shown_bars(page, "#answer .steady")
    assert first["A wins"] == percent(expected["best_response"]["win"])
    assert second["A wins"] == percent(expected["equilibrium_against_it"]["win"])
    # the plan's most frequent rows only were sent; the page still says how many in all
    assert page.locator("#answer table.plan tbody tr").count() == min(12, len(expected["plan"]))
    assert f"most frequent of {len(expected['plan'])})" in page.inner_text("#answer")
    said_as_the_cli(page.inner_text("#answer"), expected)
    screenshots(page, tmp_path, "opponent-profile")


def test_opponent_page_personality_with_strength(server, page, tmp_path):
    page.goto(f"{server}/opponent?system=uchronia")
    page.check('input[name="vs_kind"][value="personality"]')
    page.locator('select[name="vs_personality"]').select_option(index=0)
    name = page.locator('select[name="vs_personality"]').input_value()
    set_range(page, "vs_strength", "0.25")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer table.plan")
    expected = cli_json(["odds", *small_argv("uchronia"), "--vs", f"{name}:0.25"])
    assert shown_bars(page, "#answer .best")["A wins"] == \
        percent(expected["best_response"]["win"])
    assert shown_bars(page, "#answer .steady")["A wins"] == \
        percent(expected["equilibrium_against_it"]["win"])
    said_as_the_cli(page.inner_text("#answer"), expected)
    screenshots(page, tmp_path, "opponent-personality")


def said_as_the_cli(text: str, expected: dict) -> None:
    """The Opponent page says there is something to exploit exactly when the CLI's
    ``--json`` finds the best play worth more than the safe one."""
    best, steady = expected["best_response"], expected["equilibrium_against_it"]
    gain = best["value"] - steady["value"]
    if gain > 1e-9:
        assert "Where it can be exploited: your best play" in text
        assert f"you win {percent(best['win'])}" in text
    else:
        assert "exploited" not in text and "nothing more to exploit" in text
        assert "Your best play, situation by situation" in text


@pytest.mark.parametrize("system", ["falkenstein", "pathfinder", "blooded"])
def test_play_a_duel_to_the_end(server, page, tmp_path, system):
    page.goto(f"{server}/play?system={system}")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#choices button")
    shot = False
    for _ in range(500):
        if page.locator("#table-now .result").count():
            break
        if not shot:
            screenshots(page, tmp_path, f"play-{system}-turn")
            shot = True
        page.locator("#choices button.choice").first.click()
        page.wait_for_function("!document.querySelector('#choices button') || "
                               "!document.querySelector('#choices button').disabled")
    result = page.locator("#table-now .result").inner_text()
    assert result and page.locator("#table-now pre.table").inner_text()
    assert page.locator("ol.narration li").count() >= 1
    screenshots(page, tmp_path, f"play-{system}-end")


def test_npc_page_makes_a_personality(server, page, tmp_path):
    page.goto(f"{server}/npc?system=falkenstein")
    page.locator('select[name="personality"]').select_option("cautious")
    set_range(page, "strength", "0.75")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer pre.profile")
    assert "cautious" in page.inner_text("#answer pre.profile")
    with page.expect_download() as download:
        page.click("#answer a.button")
    saved = tmp_path / "npc.json"
    download.value.save_as(saved)
    shown = cli_json(["profile", "show", str(saved)])
    assert shown["personality"] == {"name": "cautious", "strength": 0.75}
    screenshots(page, tmp_path, "npc")


def test_dice_page_plots_the_distribution(server, page, tmp_path):
    page.goto(f"{server}/dice")
    page.fill('input[name="expression"]', "3d6")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("svg.chart rect")
    assert page.locator("svg.chart rect").count() == 16   # totals 3..18
    assert "10.5" in page.inner_text("#answer h2")[:40] or "10.500" in page.inner_text("#answer")
    screenshots(page, tmp_path, "dice")
    page.locator('select[name="mode"]').select_option("vs")
    page.fill('input[name="more"]', "2q6")
    page.click("form#ask button[type=submit]")
    page.locator('.error[data-for="more"]').wait_for()
    screenshots(page, tmp_path, "dice-bad")


def test_ruleset_upload_shows_in_every_header(server, page, tmp_path):
    rules = tmp_path / "short.toml"
    rules.write_text("max_rounds = 3\n")
    page.goto(f"{server}/ruleset?system=falkenstein")
    page.set_input_files('input[name="ruleset"]', str(rules))
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer table")
    header = page.inner_text("#rules")
    assert "max_rounds: 10 → 3" in header
    screenshots(page, tmp_path, "ruleset")
    page.goto(f"{server}/duel?system=falkenstein")
    assert "max_rounds: 10 → 3" in page.inner_text("#rules")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer .heatmap")
    expected = cli_json(["solve", *small_argv("falkenstein"), "--ruleset", str(rules)])
    assert shown_bars(page, "#answer .odds")["A wins"] == percent(expected["win"])
    screenshots(page, tmp_path, "duel-with-ruleset")
    page.goto(f"{server}/ruleset?system=falkenstein")
    page.click("#defaults")
    assert page.inner_text("#rules") == "Rules: the defaults"


def test_the_fields_show_what_an_uploaded_ruleset_keeps(server, page, tmp_path):
    rules = tmp_path / "sheets.toml"
    rules.write_text("[sheet_defaults]\nhp = 30\n\n[sheets.rogue]\nhp = 12\n\n"
                     "[sheets.fighter]\nhp = 25\nshield = true\n")
    page.goto(f"{server}/ruleset?system=pathfinder")
    page.set_input_files('input[name="ruleset"]', str(rules))
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer table")
    page.goto(f"{server}/duel?system=pathfinder")
    field = lambda name: page.locator(f'form#ask [name="b.{name}"]')   # noqa: E731
    page.select_option('form#ask [name="b.sheet"]', "none")
    assert field("hp").get_attribute("placeholder") == "30"
    page.select_option('form#ask [name="b.sheet"]', "rogue")   # the file's hp over the rogue's
    assert (field("hp").get_attribute("placeholder"), field("agile").is_checked()) == ("12", True)
    page.select_option('form#ask [name="b.sheet"]', "fighter")
    assert (field("hp").get_attribute("placeholder"), field("shield").is_checked()) == ("25", True)
    page.goto(f"{server}/ruleset?system=pathfinder")
    page.click("#defaults")
    page.goto(f"{server}/duel?system=pathfinder")
    page.select_option('form#ask [name="b.sheet"]', "rogue")
    assert field("hp").get_attribute("placeholder") == "17"


def test_long_work_shows_progress_and_is_cancelled(server, page, tmp_path):
    page.goto(f"{server}/duel?system=pathfinder")
    for side in ("a", "b"):
        page.fill(f'form#ask [name="{side}.hp"]', "")   # the reference sheets' 20 hp: long
    page.click("details.options summary")
    page.fill('form#ask [name="options.max_rounds"]', "")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#progress:not([hidden])")
    said = page.inner_text("#progress .said")
    assert "working for" in said
    # then the solver's own line on its step: what it solves, how far, the time left
    page.wait_for_function("document.querySelector('#progress .said').textContent"
                           ".includes('. Now solving: stage games')")
    assert re.search(r"\. Now solving: stage games \d+% \([\d,]+ of [\d,]+ counter values\)",
                     page.inner_text("#progress .said"))
    screenshots(page, tmp_path, "duel-progress")
    page.click("#cancel")
    page.wait_for_selector("#problem:not([hidden])")
    assert "cancelled" in page.inner_text("#problem")
    assert page.is_hidden("#progress")


def test_hidden_information_duel(server, page, tmp_path):
    page.goto(f"{server}/duel?system=falkenstein")
    page.click("details.options summary")
    page.locator('select[name="options.hidden_levels"]').select_option("true")
    page.fill('input[name="options.prior_a"]', "AV:0.5,GR:0.5")
    page.fill('input[name="options.max_rounds"]', "1")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer table")
    argv = [*small_argv("falkenstein"), "-o", "hidden_levels=true", "-o",
            "prior_a=AV:0.5,GR:0.5", "-o", "max_rounds=1"]
    argv.remove("max_rounds=2")
    argv.remove("-o")
    expected = cli_json(["solve", *argv])
    assert shown_bars(page)["A wins"] == percent(expected["win"])
    screenshots(page, tmp_path, "duel-hidden")


#: a 2 x 2 grid of one-round Falkenstein duels, as typed into the sweep page
SWEEP_GRID = ("a.fencing=AV,GD", "b.fencing=AV,GD")
FENCING = ("AV", "GD")


def _values_by_hand() -> list[list[str]]:
    """The heat map's squares: each pairing solved directly, as the page writes it."""
    from solver import solve_game

    def value(a: str, b: str) -> float:
        game = envs.make("falkenstein", a={"fencing": a}, b={"fencing": b}, max_rounds=1)
        return solve_game(game).value
    return [[f"{value(a, b):+.2f}" for b in FENCING] for a in FENCING]


def _shown_heat_map(page) -> list[list[str]]:
    rows = page.locator("#answer .sweep-heat table.heatmap tbody tr")
    return [[cell.inner_text() for cell in rows.nth(r).locator("td").all()]
            for r in range(rows.count())]


def test_sweep_page_runs_a_grid_and_shows_its_report(server, page, tmp_path):
    page.goto(f"{server}/sweep?system=falkenstein")
    page.fill('form#ask [name="grid"]', "\n".join(SWEEP_GRID))
    for side in ("a", "b"):
        page.fill(f'form#ask [name="{side}"]', "")   # the default sheets
    page.click("details.options summary")
    page.fill('form#ask [name="options.max_rounds"]', "1")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer .sweep-heat table.heatmap")
    assert _shown_heat_map(page) == _values_by_hand()
    assert page.locator("#answer table.worth").count() == 2      # one per axis
    assert page.locator("#answer table.worth tbody tr").count() == 4
    dominated = page.locator("#answer table.dominated tbody tr")
    assert dominated.count() == 1 and dominated.first.inner_text().startswith("(default)")
    assert page.locator("#answer table.negligible tbody tr").count() == 2
    assert page.locator("#answer table.pairings").count() == 2   # most and least balanced
    assert "4 cells" in page.inner_text("#answer .sweep-header")
    screenshots(page, tmp_path, "sweep")


def test_sweep_page_reads_a_results_file(server, page, tmp_path):
    out = tmp_path / "cells.parquet"
    from agents.cli import main
    assert main(["sweep", "falkenstein", *[f"--grid={g}" for g in SWEEP_GRID],
                 "-o", "max_rounds=1", "--out", str(out), "--workers", "1", "--quiet"]) == 0
    page.goto(f"{server}/sweep?system=falkenstein")
    page.set_input_files('form#read input[name="results"]', str(out))
    page.click("form#read button[type=submit]")
    page.wait_for_selector("#answer .sweep-heat table.heatmap")
    assert "from cells.parquet" in page.inner_text("#answer .sweep-header")
    assert _shown_heat_map(page) == _values_by_hand()
    screenshots(page, tmp_path, "sweep-read")
    page.set_input_files('form#read input[name="results"]', _not_results(tmp_path))
    page.click("form#read button[type=submit]")
    marked = page.locator('.error[data-for="results"]')
    marked.wait_for()
    assert marked.inner_text().startswith("x.parquet is not a results file of duel sweep")


def _not_results(tmp_path) -> str:
    path = tmp_path / "x.parquet"
    path.write_bytes(b"not parquet")
    return str(path)


def test_sweep_page_refuses_a_large_grid_at_its_field(server, page):
    page.goto(f"{server}/sweep?system=falkenstein")
    page.fill('form#ask [name="grid"]', "a.fencing=PR,AV,GD,GR,EXC,EXT\n"
              "b.fencing=PR,AV,GD,GR,EXC,EXT\no.max_rounds=1..6")
    page.click("form#ask button[type=submit]")
    marked = page.locator('.error[data-for="grid"]')
    marked.wait_for()
    assert marked.inner_text().startswith("the grid has 216 cells, more than the 200")


def _legal_and_played(document: dict) -> tuple[set, set, set]:
    """A's legal actions, B's, and those either side's mix plays, at the start."""
    names, matrix = list(document["mix_a"]), document["stage_matrix"]
    legal_a = {names[i] for i, row in enumerate(matrix) if any(v is not None for v in row)}
    legal_b = {names[j] for j in range(len(names))
               if any(row[j] is not None for row in matrix)}
    played = {k for k in names if document["mix_a"][k] > 1e-9 or document["mix_b"][k] > 1e-9}
    return legal_a, legal_b, played


def _shown_actions(page) -> tuple[set, set]:
    rows = page.locator("#answer table.heatmap tbody th")
    columns = page.locator("#answer table.heatmap thead th")
    return ({rows.nth(k).inner_text().split()[0] for k in range(rows.count())},
            {columns.nth(k).inner_text().split("\n")[0] for k in range(1, columns.count())})


@pytest.mark.parametrize("system", ["pathfinder", "falkenstein"])
def test_stage_game_shows_the_actions_played_when_there_are_many(server, page, system):
    """Pathfinder's example duel has more legal actions than either side plays: the heat
    map keeps the played ones; Falkenstein's six are all shown."""
    page.goto(f"{server}/duel?system={system}")
    page.click("form#ask button[type=submit]")
    page.wait_for_selector("#answer .heatmap")
    legal_a, legal_b, played = _legal_and_played(cli_json(["solve", *small_argv(system)]))
    rows, columns = _shown_actions(page)
    if system == "pathfinder":
        assert len(legal_a) > 8 and not legal_a <= played   # the case: many, some unplayed
        assert (rows, columns) == (legal_a & played, legal_b & played)
    else:
        assert len(legal_a | legal_b) <= 8
        assert (rows, columns) == (legal_a, legal_b)
