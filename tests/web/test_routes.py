"""Every route of ``duel serve`` through Starlette's test client: each JSON route answers
with the --json document of its command for the same question, bad input is one line
marked at its field (the CLI's message), and nothing a request sends brings a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import re
import warnings

import pytest

from agents.cli import main

from .helpers import cli_json, request_argv, small_argv, small_duel

with warnings.catch_warnings():
    warnings.simplefilter("ignore")   # starlette's note on httpx's successor
    from starlette.testclient import TestClient

from agents.web.app import create_app  # noqa: E402

FALKENSTEIN = small_duel("falkenstein")
SYSTEMS = ("falkenstein", "blooded", "pathfinder", "uchronia")


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(directory=tmp_path / "server")) as test_client:
        yield test_client


def cli_error(argv: list[str]) -> str:
    """The one line ``duel ARGV`` says on stderr for bad input, without its prefix."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            assert main(argv) == 2
        except SystemExit as stop:   # argparse's errors exit
            assert stop.code == 2
    said = err.getvalue().strip().split(": error: ", 1)[1]
    return re.sub(r" \(see duel [a-z ]+--help\)$", "", said)


def test_systems_is_duel_systems_json(client):
    response = client.get("/api/systems")
    assert response.status_code == 200
    assert response.json() == cli_json(["systems"])


@pytest.mark.parametrize("system", SYSTEMS)
def test_solve_is_duel_solve_json(client, system):
    response = client.post("/api/solve", json=small_duel(system))
    assert response.status_code == 200, response.text
    assert response.json() == cli_json(["solve", *small_argv(system)])


def test_solve_takes_sheets_as_mappings_and_a_state(client):
    request = dict(FALKENSTEIN, a={"fencing": "GR", "physique": "AV"}, b={"fencing": "GD"},
                   state={"round": 2, "exchange": 1})
    response = client.post("/api/solve", json=request)
    assert response.status_code == 200, response.text
    expected = cli_json(["solve", *small_argv("falkenstein"), "--state", "round=2,exchange=1"])
    assert response.json() == expected
    assert response.json()["state"]["round"] == 2


def test_a_flag_turned_off_over_a_reference_sheet(client):
    # the rogue reference sheet is agile; the page sends agile=false when its box is cleared
    request = dict(small_duel("pathfinder"), a={"sheet": "rogue", "hp": 6, "agile": False})
    response = client.post("/api/solve", json=request)
    assert response.status_code == 200, response.text
    document = response.json()
    assert document == cli_json(["solve", *request_argv("solve", request)[1:]])
    assert document != cli_json(["solve", *request_argv(
        "solve", dict(request, a={"sheet": "rogue", "hp": 6}))[1:]])


def test_odds_is_duel_odds_json(client):
    request = dict(FALKENSTEIN, vs="cautious:0.5", side="b")
    response = client.post("/api/odds", json=request)
    assert response.status_code == 200, response.text
    expected = cli_json(["odds", *small_argv("falkenstein"), "--vs", "cautious:0.5",
                         "--side", "b"])
    assert response.json() == expected


def test_odds_sends_the_plans_most_frequent_situations_when_asked(client):
    # the Opponent page asks for the 12 rows it shows: the rest are not sent
    request = dict(FALKENSTEIN, vs="cautious:0.5", limit=2)
    response = client.post("/api/odds", json=request)
    assert response.status_code == 200, response.text
    every = cli_json(["odds", *small_argv("falkenstein"), "--vs", "cautious:0.5"])
    document = response.json()
    assert document["plan"] == every["plan"][:2]
    assert len(every["plan"]) > 2
    assert document["situations"] == every["situations"] == len(every["plan"])
    assert {k: v for k, v in document.items() if k != "plan"} == \
        {k: v for k, v in every.items() if k != "plan"}
    assert document == cli_json(["odds", *small_argv("falkenstein"), "--vs", "cautious:0.5",
                                 "--limit", "2"])


def test_dice_numbers_by_hand(client):
    # 2d6: 21 of the 36 rolls make 7 or more, 6 of them exactly 7
    response = client.post("/api/dice", json={"expression": "2d6", "at_least": [7]})
    assert response.json()["at_least"][0]["probability"]["fraction"] == "7/12"
    full = client.post("/api/dice", json={"expression": "2d6"}).json()
    seven = next(o for o in full["outcomes"] if o["total"] == 7)
    assert seven["probability"]["fraction"] == "1/6"
    assert full == cli_json(["dice", "2d6"])
    opposed = client.post("/api/dice", json={"expression": "d6", "vs": "d6"}).json()
    assert opposed["tie"]["fraction"] == "1/6"      # 6 doubles of 36
    assert opposed["a_wins"]["fraction"] == "5/12"  # 15 of the 30 others
    degrees = client.post("/api/dice", json={"expression": "d20+9", "dc": [20]}).json()
    assert degrees == cli_json(["dice", "d20+9", "--dc", "20"])


def test_dice_expression_starting_with_a_minus_is_read_as_the_expression(client):
    response = client.post("/api/dice", json={"expression": "-d6"})
    assert response.status_code == 400
    assert response.json()["field"] == "expression"


@pytest.mark.parametrize(("route", "request_", "field"), [
    ("/api/solve", dict(FALKENSTEIN, a="fencing=XX"), "a.fencing"),
    ("/api/solve", dict(FALKENSTEIN, b={"fencin": "GR"}), "b.fencin"),
    ("/api/solve", dict(FALKENSTEIN, options={"max_rounds": 0}), "options.max_rounds"),
    ("/api/solve", dict(FALKENSTEIN, options={"nope": 1}), "options.nope"),
    ("/api/solve", dict(FALKENSTEIN, state="round=99"), "state"),
    ("/api/solve", dict(FALKENSTEIN, side="c"), "side"),
    ("/api/solve", dict(FALKENSTEIN, system="chess"), "system"),
    ("/api/odds", dict(FALKENSTEIN, vs="nobody"), "vs"),
    ("/api/odds", dict(FALKENSTEIN, vs="mix=ZZ:1"), "vs"),
    ("/api/dice", {"expression": "2q6"}, "expression"),
    ("/api/dice", {"expression": "2d6", "vs": "2q6"}, "vs"),
    ("/api/dice", {"expression": "2d6", "dc": [3]}, "expression"),  # not a d20 check
    ("/api/play", dict(FALKENSTEIN, seed="x"), "seed"),
    ("/api/train", dict(FALKENSTEIN, personality="grumpy"), "personality"),
])
def test_bad_input_is_the_cli_line_at_its_field(client, route, request_, field):
    response = client.post(route, json=request_)
    assert response.status_code == 400
    said = response.json()
    command = route.removeprefix("/api/")
    argv = request_argv(command, request_) + (["--out", "x.json"] * (command == "train"))
    assert said["error"] == cli_error(argv)
    assert said["field"] == field


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'"text"', b"[" * 100_000],
                         ids=["broken", "list", "text", "deep"])
def test_malformed_requests_are_one_line(client, body):
    response = client.post("/api/solve", content=body)
    assert response.status_code == 400
    assert set(response.json()) == {"error", "field"}


def test_unknown_request_field_names_the_allowed(client):
    response = client.post("/api/solve", json=dict(FALKENSTEIN, colour="red"))
    assert response.status_code == 400
    said = response.json()
    assert said["field"] == "colour"
    assert "allowed:" in said["error"] and "state" in said["error"]


@pytest.mark.parametrize("field", ["out", "json", "no_cache", "resume"])
def test_a_request_cannot_set_what_the_server_decides(client, field):
    response = client.post("/api/train", json=dict(FALKENSTEIN, **{field: "/etc/passwd"}))
    assert response.status_code == 400
    assert response.json()["field"] == field


def test_a_request_names_no_path_on_the_server(client, tmp_path):
    """Neither a file written (an EFG export) nor a file read (a profile by its path):
    a request names an upload by its id, and the server keeps its files to itself."""
    path = tmp_path / "npc.json"
    cli_json(["train", *small_argv("falkenstein"), "--out", str(path)])
    before = path.read_bytes()
    written = client.post("/api/solve", json=dict(FALKENSTEIN, export_efg=str(path),
                                                  horizon=1))
    assert written.status_code == 400 and written.json()["field"] == "export_efg"
    assert path.read_bytes() == before
    for named in (str(path), str(tmp_path / "absent.json")):
        read = client.post("/api/odds", json=dict(FALKENSTEIN, vs=named))
        assert read.status_code == 400 and read.json()["field"] == "vs"
        assert "upload" in read.json()["error"] and "not found" not in read.json()["error"]


def test_an_upload_refused_never_names_where_the_server_keeps_it(client):
    folder = str(client.app.state.server.uploads.directory)
    refused = client.post("/api/upload/profile", content=b'{"schema": "duel-profile/1"}')
    said = refused.json()["error"]
    assert refused.status_code == 400 and "missing field" in said and folder not in said


def test_request_over_the_limit_is_refused(client):
    response = client.post("/api/solve", content=b" " * (2**20 + 1))
    assert response.status_code == 400
    assert "at most" in response.json()["error"]


def test_the_same_question_is_one_job(client):
    first = client.post("/api/jobs/solve", json=FALKENSTEIN).json()
    second = client.post("/api/jobs/solve", json=dict(FALKENSTEIN, a=FALKENSTEIN["a"])).json()
    assert first["job"] == second["job"]
    other = client.post("/api/jobs/solve", json=dict(FALKENSTEIN, side="b")).json()
    assert other["job"] != first["job"]
    while client.get(f"/api/jobs/{first['job']}").json()["state"] in ("waiting", "running"):
        pass
    result = client.get(f"/api/jobs/{first['job']}/result")
    assert result.json() == cli_json(["solve", *small_argv("falkenstein")])


def test_a_job_is_cancelled_and_the_server_goes_on(client):
    big = {"system": "pathfinder", "a": "fighter", "b": "rogue"}   # hp 20 each: long
    job = client.post("/api/jobs/solve", json=big).json()
    assert client.get("/api/systems").status_code == 200   # served meanwhile
    cancelled = client.delete(f"/api/jobs/{job['job']}").json()
    assert cancelled["state"] == "cancelled"
    assert client.get(f"/api/jobs/{job['job']}/result").status_code == 409
    again = client.post("/api/jobs/solve", json=big).json()
    assert again["job"] != job["job"]   # a cancelled question is asked anew
    client.delete(f"/api/jobs/{again['job']}")


def test_a_running_job_says_what_the_solver_does(client):
    """A long question's status carries the solver's own progress line (the one the
    terminal draws): its step and its share done, while it runs; none once done."""
    big = {"system": "pathfinder", "a": "fighter", "b": "rogue"}   # hp 20 each: seconds
    status, said = _work_said(client, "solve", big)
    assert status["state"] == "done" and status["work"] is None
    steps = re.compile(r"[a-z ]+(: [a-z ]+)? \d+% \([\d,]+ of [\d,]+ [a-z ]+\)")
    assert not [line for line in said if not steps.match(line)]
    assert any(line.startswith("solving: stage games") for line in said), said


def test_a_running_odds_job_says_its_step_and_the_questions_time_left(client):
    """``duel odds``'s six steps (the equilibrium, the opponent, the odds against it,
    the best response, its odds, the plan's chances) are said with the solve running
    inside each."""
    big = {"system": "pathfinder", "a": "fighter,hp=10", "b": "rogue,hp=10", "vs": "uniform"}
    status, said = _work_said(client, "odds", big)
    assert status["state"] == "done"
    assert said and not [line for line in said if not re.match(r"the odds \(step [1-6] of 6\)",
                                                             line)], said
    assert any(line.startswith("the odds (step 1 of 6) > solving: stage games")
               for line in said), said


def _work_said(client, kind: str, question: dict) -> tuple[dict, set[str]]:
    """A job of ``kind`` followed to its end: its last status, and every solver line
    (``work``) its status carried while it ran."""
    job = client.post(f"/api/jobs/{kind}", json=question).json()
    said = set()
    while (status := client.get(f"/api/jobs/{job['job']}").json())["state"] in (
            "waiting", "running"):
        if status["work"]:
            said.add(status["work"])
    return status, said


def test_unknown_job_and_work(client):
    assert client.get("/api/jobs/j999").status_code == 404
    assert client.delete("/api/jobs/j999").status_code == 404
    assert client.post("/api/jobs/dance", json={}).status_code == 404
    assert client.get("/api/jobs/j999/profile").status_code == 404


def test_play_to_the_end_is_duel_play_json(client, monkeypatch):
    request = dict(FALKENSTEIN, seed=3)
    view = client.post("/api/play", json=request).json()
    assert view["choices"] and not view["over"]
    turns = 0
    while not view["over"]:
        response = client.post(f"/api/play/{view['session']}", json={"action": 1})
        assert response.status_code == 200, response.text
        view = response.json()
        turns += 1
    assert view["revealed"] and view["result"] == view["document"]["result"]
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * (turns + 5)))
    expected = cli_json(["play", *small_argv("falkenstein"), "--seed", "3"])
    assert view["document"] == expected
    over = client.post(f"/api/play/{view['session']}", json={"action": 1})
    assert over.status_code == 400


def test_a_bid_is_typed_as_its_amount(client):
    """Blooded's bids are numbered by the dice bid, in the terminal as on the page:
    choosing 1 bids one die, not the first choice (bid 0)."""
    view = client.post("/api/play", json=dict(small_duel("blooded"), seed=1)).json()
    bids = [choice for choice in view["choices"] if choice["words"].startswith("bid ")]
    assert bids == view["choices"] and len(bids) > 2
    assert [choice["number"] for choice in bids] == list(range(len(bids)))
    said = client.post(f"/api/play/{view['session']}", json={"action": 1}).json()
    assert any(line.startswith("A bids 1 die,") for line in said["narration"]), said


def test_play_bad_choices(client):
    view = client.post("/api/play", json=FALKENSTEIN).json()
    wrong = client.post(f"/api/play/{view['session']}", json={"action": "XYZ"})
    assert wrong.status_code == 400 and "legal" in wrong.json()["error"]
    assert client.post(f"/api/play/{view['session']}", json={}).json()["field"] == "action"
    # an unknown duel is not found, as the API's docs say of an unknown job or page
    assert client.post("/api/play/s999", json={"action": 1}).status_code == 404
    for neither in (True, None, 1.0, ["AA"]):   # true is not choice number 1
        refused = client.post(f"/api/play/{view['session']}", json={"action": neither})
        assert refused.status_code == 400 and "name or its number" in refused.json()["error"]
    left = client.post(f"/api/play/{view['session']}", json={"action": "quit"}).json()
    assert left["over"] and left["document"]["result"] == "abandoned"


def test_ruleset_upload_hash_and_differences(client):
    response = client.post("/api/upload/ruleset?system=falkenstein",
                           content=b"max_rounds = 3\n")
    said = response.json()
    assert said["differences"] == [{"key": "max_rounds", "default": 10, "value": 3}]
    assert said["hash"] != said["default_hash"]
    assert said["shown"]["options"]["max_rounds"] == "3"   # what the forms show in grey
    # the rules are used: three rounds, as -o max_rounds=3 gives
    solved = client.post("/api/solve", json={"system": "falkenstein", "a": "fencing=GR",
                                             "ruleset": said["ruleset"]}).json()
    assert solved["win"] == pytest.approx(cli_json(
        ["solve", "falkenstein", "--a", "fencing=GR", "-o", "max_rounds=3"])["win"], abs=1e-12)


@pytest.mark.parametrize(("query", "body"), [
    ("system=falkenstein", b"max_rounds = \n"),            # not TOML
    ("system=falkenstein", b"colour = 3\n"),               # unknown key
    ("system=falkenstein", b"max_rounds = 'ten'\n"),       # wrong kind
    ("system=chess", b"max_rounds = 3\n"),                 # unknown system
    ("system=falkenstein", b"\xff\xfe\x00"),               # not text
    ("system=falkenstein", "LARGE"),                       # over the limit
], ids=["toml", "key", "kind", "system", "bytes", "large"])
def test_bad_rulesets(client, query, body):
    if body == "LARGE":
        body = b"# " + b"x" * 2**20 + b"\n"
    response = client.post(f"/api/upload/ruleset?{query}", content=body)
    assert response.status_code == 400
    assert response.json()["field"] == "ruleset"


def test_unknown_ruleset_id(client):
    response = client.post("/api/solve", json=dict(FALKENSTEIN, ruleset="0123456789abcdef"))
    assert response.status_code == 400 and response.json()["field"] == "ruleset"
    response = client.post("/api/solve", json=dict(FALKENSTEIN, ruleset="../../etc/passwd"))
    assert response.status_code == 400 and response.json()["field"] == "ruleset"


def test_profile_upload_show_and_odds_against_it(client, tmp_path):
    path = tmp_path / "npc.json"
    cli_json(["train", *small_argv("falkenstein"), "--personality", "cautious",
              "--out", str(path)])
    uploaded = client.post("/api/upload/profile", content=path.read_bytes()).json()
    assert uploaded["system"] == "falkenstein" and uploaded["side"] == "b"
    shown = client.post("/api/profile/show", json={"profile": uploaded["profile"]}).json()
    assert shown == cli_json(["profile", "show", str(path)])
    valid = client.post("/api/profile/validate", json={"profile": uploaded["profile"]}).json()
    expected = cli_json(["profile", "validate", str(path)])
    assert {k: v for k, v in valid.items() if k != "file"} == \
        {k: v for k, v in expected.items() if k != "file"}
    words = client.post("/api/profile/words", json={"profile": uploaded["profile"]}).json()
    assert "cautious" in words["text"]
    odds = client.post("/api/odds", json=dict(FALKENSTEIN, vs={"profile": uploaded["profile"]}))
    expected = cli_json(["odds", *small_argv("falkenstein"), "--vs", str(path)])
    assert {k: v for k, v in odds.json().items() if k != "vs"} == \
        {k: v for k, v in expected.items() if k != "vs"}


@pytest.mark.parametrize("body", [b"not json", b"{}", b'{"schema": "duel-profile/9"}',
                                  b"\x1f\x8b\x08\x00garbage"])
def test_bad_profiles(client, body):
    response = client.post("/api/upload/profile", content=body)
    assert response.status_code == 400
    assert response.json()["field"] == "profile"


def test_train_and_download(client, tmp_path):
    response = client.post("/api/train", json=dict(FALKENSTEIN, personality="cautious",
                                                   strength=0.25))
    assert response.status_code == 200, response.text
    trained = response.json()
    expected = cli_json(["train", *small_argv("falkenstein"), "--personality", "cautious",
                         "--strength", "0.25", "--out", str(tmp_path / "npc.json")])
    assert trained["metrics"] == expected["metrics"]
    assert trained["stored"] == expected["stored"] == "exact"
    job = client.post("/api/jobs/train", json=dict(FALKENSTEIN, personality="cautious",
                                                   strength=0.25)).json()
    profile = client.get(f"/api/jobs/{job['job']}/profile")
    assert profile.status_code == 200
    assert json.loads(profile.content)["personality"] == {"name": "cautious", "strength": 0.25}


def test_personalities(client):
    names = client.get("/api/personalities?system=falkenstein").json()
    assert "cautious" in names
    assert client.get("/api/personalities?system=chess").status_code == 400


@pytest.mark.parametrize("page", ["duel", "opponent", "play", "npc", "sweep", "dice", "ruleset"])
@pytest.mark.parametrize("system", SYSTEMS)
def test_pages_render_for_every_system(client, page, system):
    response = client.get(f"/{page}?system={system}")
    assert response.status_code == 200
    html = response.text
    assert "/static/app.js" in html and "Traceback" not in html
    if page in ("duel", "opponent", "play", "npc"):
        for field in cli_json(["systems"]):
            if field["name"] == system:
                names = [f"a.{f['name']}" for f in field["sheet"]]
                assert all(f'name="{n}"' in html for n in names)


def test_pages_and_static(client):
    assert client.get("/", follow_redirects=False).headers["location"] == "/duel"
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    missing = client.get("/nowhere")
    assert missing.status_code == 404 and "<html" in missing.text
    assert client.get("/duel?system=chess").status_code == 200   # the first system


def test_cross_origin_only_from_the_origins_named(tmp_path):
    app = create_app(allow_origins=["https://vtt.example"], directory=tmp_path)
    with TestClient(app) as test_client:
        allowed = test_client.get("/api/systems", headers={"Origin": "https://vtt.example"})
        assert allowed.headers["access-control-allow-origin"] == "https://vtt.example"
        other = test_client.get("/api/systems", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers
    with TestClient(create_app(directory=tmp_path / "b")) as closed:
        said = closed.get("/api/systems", headers={"Origin": "https://vtt.example"})
        assert "access-control-allow-origin" not in said.headers


def test_hidden_information_solve_and_odds_are_the_cli_documents(client):
    request = {"system": "falkenstein", "options": {
        "hidden_levels": True, "prior_a": "AV:0.5,GR:0.5", "prior_b": "GD:1", "max_rounds": 1}}
    argv = ["falkenstein", "-o", "hidden_levels=true", "-o", "prior_a=AV:0.5,GR:0.5",
            "-o", "prior_b=GD:1", "-o", "max_rounds=1"]
    solved = client.post("/api/solve", json=request)
    assert solved.status_code == 200, solved.text
    assert solved.json() == cli_json(["solve", *argv])
    assert solved.json()["hidden"] is True
    odds = client.post("/api/odds", json=dict(request, vs="uniform"))
    assert odds.json() == cli_json(["odds", *argv, "--vs", "uniform"])
    refused = client.post("/api/solve", json=dict(request, state="round=1"))
    assert refused.status_code == 400 and refused.json()["field"] == "state"


# --- the sweep: a grid of duels and its report

#: a 2 x 2 grid of one-round Falkenstein duels (seconds)
SWEEP = {"system": "falkenstein", "grid": ["a.fencing=AV,GD", "b.fencing=AV,GD"],
         "options": {"max_rounds": 1}}
LEVELS = ("AV", "GD")
TOL = 1e-12


@pytest.fixture(scope="module")
def solved_pairs():
    """Each pairing of the grid made and solved directly, by the fencing of A and B."""
    import envs
    from solver import solve_game
    return {(a, b): solve_game(envs.make("falkenstein", a={"fencing": a},
                                         b={"fencing": b}, max_rounds=1)).evaluation
            for a in LEVELS for b in LEVELS}


def test_a_sweep_base_sheet_as_a_mapping_is_its_command_line_text():
    from agents.web.requests import parse_request
    request = {"system": "pathfinder", "grid": ["a.hp=5,6"],
               "a": {"sheet": "rogue", "agile": False, "shield": True},
               "b": {"agile": False, "hp": 5}}
    args = parse_request("sweep", request, uploads=None, server=["--out", "unused"])
    # off over a reference sheet is said (the rogue is agile); off over the default is not
    assert (args.a, args.b) == ("rogue,agile=false,shield", "hp=5")


def test_sweep_cells_are_their_duels_solved(client, tmp_path, solved_pairs):
    pq = pytest.importorskip("pyarrow.parquet")
    response = client.post("/api/sweep", json=SWEEP)
    assert response.status_code == 200, response.text
    summary = response.json()["summary"]
    assert summary["cells"] == 4 and summary["solved"] + summary["from_mirror"] == 4
    job = client.post("/api/jobs/sweep", json=SWEEP).json()   # asked again: done already
    assert job["state"] == "done"
    download = client.get(f"/api/jobs/{job['job']}/results")
    assert download.status_code == 200
    (tmp_path / "cells.parquet").write_bytes(download.content)
    rows = pq.read_table(tmp_path / "cells.parquet").to_pylist()
    assert [(r["grid_a_fencing"], r["grid_b_fencing"]) for r in rows] == [
        (a, b) for a in LEVELS for b in LEVELS]
    for row in rows:
        direct = solved_pairs[row["grid_a_fencing"], row["grid_b_fencing"]]
        for column in ("value", "win", "draw", "loss"):
            assert abs(row[column] - getattr(direct, column)) <= TOL, (column, row)


def test_sweep_report_is_the_hand_reading_of_its_cells(client, solved_pairs):
    report = client.post("/api/sweep", json=SWEEP).json()["report"]
    value = {pair: e.value for pair, e in solved_pairs.items()}
    win = {pair: e.win for pair, e in solved_pairs.items()}
    header = report["header"]
    assert header["cells"] == 4 and header["system"] == "falkenstein"
    assert header["axes"] == [{"label": "a.fencing", "values": list(LEVELS)},
                              {"label": "b.fencing", "values": list(LEVELS)}]
    # the heat map: the value of each pairing, A's fencing down, B's across
    heat = report["heat_map"]
    assert (heat["row_axis"], heat["column_axis"]) == ("a.fencing", "b.fencing")
    assert heat["averaged_over"] is None   # two axes: nothing averaged
    for r, a in enumerate(LEVELS):
        for c, b in enumerate(LEVELS):
            assert heat["values"][r][c] == pytest.approx(value[a, b], abs=TOL)
    best, worst = max(value, key=value.get), min(value, key=value.get)
    assert (heat["best"]["row"], heat["best"]["column"]) == best
    assert (heat["worst"]["row"], heat["worst"]["column"]) == worst
    assert heat["best"]["value"] == pytest.approx(value[best], abs=TOL)
    # what each field is worth: A's chance of winning, AV to GD, at each level of the other
    worth_a, worth_b = report["worth"]
    assert worth_a["steps"] == worth_b["steps"] == ["AV→GD"]
    gains_a = [100 * (win["GD", b] - win["AV", b]) for b in LEVELS]
    gains_b = [100 * (win[a, "GD"] - win[a, "AV"]) for a in LEVELS]
    assert [r["points"][0] for r in worth_a["rows"]] == pytest.approx(gains_a, abs=1e-9)
    assert [r["points"][0] for r in worth_b["rows"]] == pytest.approx(gains_b, abs=1e-9)
    assert [r["others"] for r in worth_a["rows"]] == ["b.fencing=AV", "b.fencing=GD"]
    assert (worth_a["low"], worth_a["high"]) == pytest.approx((min(gains_a), max(gains_a)))
    assert worth_a["mean"] == pytest.approx(sum(gains_a) / 2)
    # dominated: A's default sheet (AV, written "") is never better than GD against either
    # B, and better against none
    gaps = [value["GD", b] - value["AV", b] for b in LEVELS]
    assert min(gaps) > 0
    (pair,) = report["dominated"]["pairs"]
    assert (pair["sheet"], pair["better"], pair["opponents"]) == ("", "fencing=GD", 2)
    assert (pair["gap_min"], pair["gap_max"]) == pytest.approx((min(gaps), max(gaps)))
    # negligible: both axes are choices; each moves A's chance by |GD - AV| at most
    moved = report["negligible"]["axes"]
    assert [m["axis"] for m in moved] == ["a.fencing", "b.fencing"]
    assert moved[0]["most_points"] == pytest.approx(max(map(abs, gains_a)), abs=1e-9)
    assert moved[1]["mean_points"] == pytest.approx(sum(map(abs, gains_b)) / 2, abs=1e-9)
    assert moved[0]["negligible"] is (max(map(abs, gains_a)) < 0.5)
    # balance: the two pairings of different sheets, AV-GD and GD-AV (the mirrored two
    # sheets against themselves are left out)
    balance = report["balance"]
    assert balance["same_sheet"] == 2
    for ranked in (balance["most"], balance["least"]):
        shown = {(r["a"], r["b"]): r for r in ranked}
        assert set(shown) == {("", "fencing=GD"), ("fencing=GD", "")}
        for (a, b), sheets in ((("AV", "GD"), ("", "fencing=GD")),
                               (("GD", "AV"), ("fencing=GD", ""))):
            assert shown[sheets]["win"] == pytest.approx(win[a, b], abs=TOL)
            assert shown[sheets]["loss"] == pytest.approx(solved_pairs[a, b].loss, abs=TOL)


def test_sweep_results_file_of_the_cli_reads_as_the_same_report(client, tmp_path):
    out = tmp_path / "cells.parquet"
    argv = ["sweep", "falkenstein", *[f"--grid={g}" for g in SWEEP["grid"]],
            "-o", "max_rounds=1", "--out", str(out), "--workers", "1", "--quiet"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    uploaded = client.post("/api/upload/results?name=cells.parquet", content=out.read_bytes())
    assert uploaded.status_code == 200, uploaded.text
    read = uploaded.json()["report"]
    assert read["header"]["source"] == "cells.parquet"
    ran = client.post("/api/sweep", json=SWEEP).json()["report"]
    ran["header"]["source"] = "cells.parquet"
    assert read == ran


def test_the_same_sweep_is_one_job(client):
    first = client.post("/api/jobs/sweep", json=SWEEP).json()
    spelled = dict(SWEEP, grid=["a.Fencing=AV,GD", "b.FENCING=AV,GD"])
    assert client.post("/api/jobs/sweep", json=spelled).json()["job"] == first["job"]
    other = dict(SWEEP, grid=["a.fencing=AV,GD"])
    assert client.post("/api/jobs/sweep", json=other).json()["job"] != first["job"]
    while client.get(f"/api/jobs/{first['job']}").json()["state"] in ("waiting", "running"):
        pass
    status = client.get(f"/api/jobs/{first['job']}").json()
    assert status["state"] == "done"
    # its progress: the cells solved of the cells planned (one is read from its mirror)
    assert status["progress"] == {"done": 3, "planned": 3}


def test_a_sweep_is_cancelled(client):
    long = {"system": "pathfinder", "grid": ["a=fighter,rogue"], "b": "rogue"}  # hp 20: long
    job = client.post("/api/jobs/sweep", json=long).json()
    cancelled = client.delete(f"/api/jobs/{job['job']}").json()
    assert cancelled["state"] == "cancelled"
    assert client.get(f"/api/jobs/{job['job']}/results").status_code == 404


@pytest.mark.parametrize(("request_", "said"), [
    (dict(SWEEP, grid=["a.fencing=PR,AV,GD,GR,EXC,EXT", "b.fencing=PR,AV,GD,GR,EXC,EXT",
                       "o.max_rounds=1..6"]),
     "the grid has 216 cells, more than the 200 a sweep of this screen solves; narrow it, "
     "or run duel sweep on the command line"),
    (dict(SWEEP, grid=["ruleset=/etc/passwd"]), "a ruleset= axis names files"),
    (dict(SWEEP, grid=[]), "give at least one --grid AXIS=VALUES"),
], ids=["too-many", "ruleset-axis", "none"])
def test_a_sweep_refused_before_any_work(client, request_, said):
    response = client.post("/api/sweep", json=request_)
    assert response.status_code == 400
    assert response.json()["error"].startswith(said)
    assert response.json()["field"] == "grid"
    assert client.app.state.server.jobs.jobs == {}   # no job was started


@pytest.mark.parametrize(("grid", "field"), [
    (["a.fencin=AV"], "grid"), (["a.fencing=AV,XX"], "grid"), (["x.fencing=AV"], "grid"),
    (["o.max_rounds=0,1"], "grid"),
])
def test_a_bad_grid_is_the_cli_line(client, tmp_path, grid, field):
    response = client.post("/api/sweep", json=dict(SWEEP, grid=grid))
    assert response.status_code == 400
    argv = ["sweep", "falkenstein", *[f"--grid={g}" for g in grid], "-o", "max_rounds=1",
            "--out", str(tmp_path / "x.parquet")]
    assert response.json() == {"error": cli_error(argv), "field": field}


@pytest.mark.parametrize("key", ["workers", "max_cells", "backend", "report",
                                 "personalities", "out"])
def test_a_sweep_request_cannot_set_what_the_server_decides(client, key):
    response = client.post("/api/sweep", json=dict(SWEEP, **{key: "4"}))
    assert response.status_code == 400 and response.json()["field"] == key


def test_bad_results_files(client, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"a": [1, 2]}), tmp_path / "plain.parquet")
    for body in (b"not parquet", (tmp_path / "plain.parquet").read_bytes()):
        response = client.post("/api/upload/results?name=cells.parquet", content=body)
        assert response.status_code == 400
        said = response.json()
        assert said["field"] == "results"
        assert said["error"].startswith("cells.parquet is not a results file of duel sweep")
