"""The ASGI app of ``duel serve``: the pages and the JSON routes behind them.

Every JSON route answers with exactly the ``--json`` document of the command it is named
after (``POST /api/solve`` is ``duel solve --json``): the request is parsed by that
command's parser (``requests``) and the document built by that command's function
(``agents.cli.<command>.document``), in a worker process (``jobs``) for anything that
solves. The routes are listed in docs/api.md.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from solver.errors import InputError

from ..cli import checks
from . import pages
from .jobs import Jobs
from .requests import SWEEP_MAX_CELLS, RequestError, field_of, parse_request
from .sessions import Sessions
from .uploads import LIMITS, Uploads

#: the largest JSON request (a request names sheets and options: a few hundred bytes)
MAX_REQUEST_BYTES = 2**20
#: the commands a job runs, and how each is checked before it is started
JOB_KINDS = ("solve", "odds", "train", "sweep")

log = logging.getLogger("duel.web")


class Server:
    """The state of one ``duel serve``: jobs, duels in play, uploaded files."""

    def __init__(self, workers: int = 2, directory: Path | None = None):
        self.jobs = Jobs(workers)
        self.sessions = Sessions()
        self.uploads = Uploads(directory)
        for folder in ("trained", "sweeps"):
            (self.uploads.directory / folder).mkdir(exist_ok=True)

    def args(self, command: str, request, action: str | None = None):
        # where a training or a sweep writes is the server's to say (set for each job)
        server = {"train": ["--out", str(self.uploads.directory / "trained" / "npc.json")],
                  "sweep": ["--out", str(self.uploads.directory / "sweeps" / "cells.parquet"),
                            f"--max-cells={SWEEP_MAX_CELLS}", "--quiet"]}.get(command, [])
        return parse_request(command, request, self.uploads.path, action, server)


# --- reading requests


async def read_body(request: Request, limit: int, what: str,
                    field: str | None = None) -> bytes:
    """The request's body, refused past ``limit`` bytes before it is all read."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise RequestError(f"{what} is {int(declared)} bytes; allowed: at most {limit}", field)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(f"{what} is more than {limit} bytes; allowed: at most {limit}",
                               field)
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request) -> object:
    body = await read_body(request, MAX_REQUEST_BYTES, "the request")
    try:
        return json.loads(body or b"{}")
    except (ValueError, RecursionError) as error:
        raise RequestError(f"the request is not valid JSON: {error}") from None


def document(text: str) -> Response:
    """A document as the command printed it (its JSON text, not parsed again)."""
    return Response(text, media_type="application/json")


# --- the JSON routes


async def systems(request: Request) -> Response:
    from ..cli import systems as command
    return JSONResponse(await run_in_threadpool(command.document))


async def dice(request: Request) -> Response:
    from .work import document_text
    body = await read_json(request)
    args = request.app.state.server.args("dice", body)
    return document(await _marked(body, document_text, "dice", args))


async def _marked(body, function, *args):
    """``function(*args)`` in a thread, its bad input marked at the request's field."""
    try:
        return await run_in_threadpool(function, *args)
    except InputError as error:
        raise RequestError(str(error), getattr(error, "field", None)
                           or field_of(str(error), body)) from None


async def profile_show(request: Request) -> Response:
    return await _profile(request, "show")


async def profile_validate(request: Request) -> Response:
    return await _profile(request, "validate")


async def _profile(request: Request, action: str) -> Response:
    from .work import document_text
    body = await read_json(request)
    args = request.app.state.server.args("profile", body, action)
    return document(await _marked(body, document_text, f"profile {action}", args))


async def profile_words(request: Request) -> Response:
    """``duel profile show``'s text: the profile in words."""
    from ..cli.profile import show_text
    body = await read_json(request)
    args = request.app.state.server.args("profile", body, "show")
    return JSONResponse({"text": await _marked(body, show_text, args)})


async def personalities(request: Request) -> Response:
    from ..temperaments import personality_names
    system = request.query_params.get("system", "")
    return JSONResponse(await run_in_threadpool(_personalities, personality_names, system))


def _personalities(names, system: str) -> dict:
    import envs
    if system not in envs.systems():
        raise RequestError(f"unknown system {system!r}; allowed: {', '.join(envs.systems())}",
                           "system")
    return names(system)


async def answer(request: Request) -> Response:
    """``POST /api/solve``, ``/api/odds``, ``/api/train``: the document, once computed
    (by this request, or by the one that asked the same first)."""
    job = await _submit(request, request.path_params["kind"])
    while not job.finished.is_set():
        await asyncio.sleep(0.02)
    return _result(job)


async def start_job(request: Request) -> Response:
    """``POST /api/jobs/{kind}``: start (or join) the work; the page follows its progress."""
    job = await _submit(request, request.path_params["kind"])
    return JSONResponse(job.status(), status_code=202)


async def job_status(request: Request) -> Response:
    return JSONResponse(_job(request).status())


async def job_result(request: Request) -> Response:
    job = _job(request)
    if not job.finished.is_set():
        return JSONResponse(job.status(), status_code=409)
    return _result(job)


async def cancel_job(request: Request) -> Response:
    job = request.app.state.server.jobs.cancel(request.path_params["job"])
    if job is None:
        raise HTTPException(404, f"no job {request.path_params['job']!r}")
    return JSONResponse(job.status())


async def sweep_results(request: Request) -> Response:
    """The results file (Parquet) a sweep job wrote, to download."""
    from .work import results_name
    job = _job(request)
    if job.kind != "sweep" or job.state != "done":
        raise HTTPException(404, "no results: the job is not a finished sweep")
    return FileResponse(job.args.out, media_type="application/vnd.apache.parquet",
                        filename=results_name(job.args.system))


async def trained_profile(request: Request) -> Response:
    """The profile a training job wrote, to download."""
    job = _job(request)
    if job.kind != "train" or job.state != "done":
        raise HTTPException(404, "no profile: the job is not a finished training")
    return FileResponse(job.args.out, media_type="application/json",
                        filename=Path(job.args.out).name)


def _job(request: Request):
    job = request.app.state.server.jobs.get(request.path_params["job"])
    if job is None:
        raise HTTPException(404, f"no job {request.path_params['job']!r}")
    return job


def _result(job) -> Response:
    if job.state == "done":
        return document(job.result)
    if job.state == "cancelled":
        return JSONResponse({"error": "the computation was cancelled", "field": None},
                            status_code=409)
    return JSONResponse({"error": job.error, "field": field_of(job.error or "", job.args)},
                        status_code=400)


async def _submit(request: Request, kind: str):
    if kind not in JOB_KINDS:
        raise HTTPException(404, f"no such work {kind!r}; allowed: {', '.join(JOB_KINDS)}")
    server: Server = request.app.state.server
    body = await read_json(request)
    args = server.args(kind, body)
    question = _sweep_question if kind == "sweep" else _question
    key, system = await run_in_threadpool(question, kind, args, body)
    named = hashlib.sha256(key.encode()).hexdigest()[:16]
    if kind == "train":   # each training writes its own file, named by its question
        args.out = str(server.uploads.directory / "trained" / f"{named}.json")
    if kind == "sweep":   # and each sweep: asked again after a cancel, it resumes
        args.out = str(server.uploads.directory / "sweeps" / f"{named}.parquet")
    return server.jobs.submit(key, kind, args, system)


def _question(kind: str, args, body) -> tuple[str, str]:
    """The question's key: the command, the game as the answer store knows it and the
    rest of what is asked; its input checked before any work is started."""
    try:
        game = getattr(checks, kind)(args)
    except InputError as error:
        raise RequestError(str(error), field_of(str(error), body)) from None
    game = game[0] if isinstance(game, tuple) else game
    identity = game.info.identity or json.dumps(game.info.options, sort_keys=True,
                                                default=str)
    asked = {k: v for k, v in sorted(vars(args).items())
             if k not in ("a", "b", "me", "them", "options", "ruleset", "system", "out")}
    return f"{kind}|{identity}|{json.dumps(asked, default=str)}|{_vs_key(args)}", \
        game.info.system


def _sweep_question(kind: str, args, body) -> tuple[str, str]:
    """A sweep's key: its grid as the results file records it and every cell's duel (by
    the answer store's key of a cell: a ruleset by the hash of its rules); the grid
    checked, and refused past ``SWEEP_MAX_CELLS``, before any work."""
    from ..sweep.results import describe
    grid = None
    try:
        grid = checks.sweep_grid(args)
        if any(axis.target == "ruleset" for axis in grid.axes):   # it names files
            raise RequestError("a ruleset= axis names files, which this screen does not "
                               "read; upload one ruleset (the Ruleset page) for every "
                               "cell, or run duel sweep on the command line", "grid")
        if grid.size > SWEEP_MAX_CELLS:
            raise RequestError(f"the grid has {grid.size} cells, more than the "
                               f"{SWEEP_MAX_CELLS} a sweep of this screen solves; narrow "
                               "it, or run duel sweep on the command line", "grid")
        cells = grid.cells(SWEEP_MAX_CELLS)
    except RequestError:
        raise
    except InputError as error:
        raise RequestError(str(error), _sweep_field(str(error), body, grid)) from None
    key = json.dumps([describe(grid), [cell.key for cell in cells]], default=str)
    return f"{kind}|{key}", grid.system


def _sweep_field(message: str, body, grid) -> str | None:
    """The field of a sweep's error: ``grid`` when it is about a value of an axis (an
    axis ``a.fencing`` and the sheet field ``a.fencing`` read alike), else its field."""
    field = field_of(message, body)
    labels = {axis.label for axis in grid.axes} if grid is not None else set()
    as_axis = "o." + field.removeprefix("options.") if field and field.startswith(
        "options.") else field
    if as_axis in labels or "--grid" in message:
        return "grid"
    return field


def _vs_key(args) -> str:
    vs = getattr(args, "vs", None)
    if isinstance(vs, str) and Path(vs).is_file():
        return "profile sha256=" + hashlib.sha256(Path(vs).read_bytes()).hexdigest()
    return ""


async def play_start(request: Request) -> Response:
    server: Server = request.app.state.server
    body = await read_json(request)
    args = server.args("play", body)
    session = await _marked(body, _with_store, server.sessions.start, args)
    return JSONResponse(session.view(session.narration))


async def play_choose(request: Request) -> Response:
    server: Server = request.app.state.server
    try:
        session = server.sessions.get(request.path_params["session"])
    except InputError as error:   # an unknown duel, as an unknown job: not found
        raise HTTPException(404, str(error)) from None
    body = await read_json(request)
    if not isinstance(body, dict) or "action" not in body:
        raise RequestError('give {"action": NAME or NUMBER} (or "quit")', "action")

    def choose():
        with session.lock:
            said = session.choose(body["action"])
            return session.view(said)
    return JSONResponse(await run_in_threadpool(choose))


def _with_store(function, *args):
    from solver.cache import caching

    from ..store import AnswerStore
    with caching(AnswerStore()):
        return function(*args)


async def upload_ruleset(request: Request) -> Response:
    system = request.query_params.get("system", "")
    return await _upload(request, "ruleset", "the ruleset",
                         lambda uploads, data: uploads.ruleset(system, data))


async def upload_results(request: Request) -> Response:
    """A sweep's results file (``cells.parquet``): its id and its report."""
    name = request.query_params.get("name")
    return await _upload(request, "results", "the results file",
                         lambda uploads, data: uploads.results(data, name))


async def upload_profile(request: Request) -> Response:
    return await _upload(request, "profile", "the profile",
                         lambda uploads, data: uploads.profile(data))


async def _upload(request: Request, kind: str, what: str, keep) -> Response:
    """A file's body, within ``kind``'s limit, kept by ``keep(uploads, data)`` off the
    event loop; its refusal names the field ``kind``."""
    server: Server = request.app.state.server
    data = await read_body(request, LIMITS[kind], what, kind)
    try:
        return JSONResponse(await run_in_threadpool(keep, server.uploads, data))
    except InputError as error:
        raise RequestError(str(error), kind) from None


# --- errors: one line, never a traceback


async def input_error(request: Request, error: Exception) -> Response:
    field = getattr(error, "field", None)
    said = request.app.state.server.uploads.public(str(error))
    return JSONResponse({"error": said, "field": field}, status_code=400)


async def http_error(request: Request, error: HTTPException) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": error.detail, "field": None},
                            status_code=error.status_code)
    return HTMLResponse(pages.error_page(error.status_code, str(error.detail)),
                        status_code=error.status_code)


async def server_error(request: Request, error: Exception) -> Response:
    log.exception("internal error on %s", request.url.path)
    return JSONResponse({"error": f"internal error ({type(error).__name__}); the server's "
                                  "log has the details", "field": None}, status_code=500)


# --- pages


async def page(request: Request) -> Response:
    name = request.path_params.get("page", "duel")
    html = await run_in_threadpool(pages.render, name, dict(request.query_params))
    if html is None:
        raise HTTPException(404, f"no page {name!r}")
    return HTMLResponse(html)


async def home(request: Request) -> Response:
    return RedirectResponse("/duel")


def create_app(allow_origins: list[str] | None = None, workers: int = 2,
               directory: Path | None = None) -> Starlette:
    """The app; ``allow_origins``: the origins (a virtual tabletop's) whose pages may
    call the API from a browser."""
    middleware = []
    if allow_origins:
        middleware.append(Middleware(CORSMiddleware, allow_origins=list(allow_origins),
                                     allow_methods=["GET", "POST", "DELETE"],
                                     allow_headers=["Content-Type"]))
    api = [
        Route("/api/systems", systems),
        Route("/api/personalities", personalities),
        Route("/api/dice", dice, methods=["POST"]),
        Route("/api/profile/show", profile_show, methods=["POST"]),
        Route("/api/profile/validate", profile_validate, methods=["POST"]),
        Route("/api/profile/words", profile_words, methods=["POST"]),
        Route("/api/upload/ruleset", upload_ruleset, methods=["POST"]),
        Route("/api/upload/profile", upload_profile, methods=["POST"]),
        Route("/api/upload/results", upload_results, methods=["POST"]),
        Route("/api/play", play_start, methods=["POST"]),
        Route("/api/play/{session}", play_choose, methods=["POST"]),
        Route("/api/jobs/{kind}", start_job, methods=["POST"]),
        Route("/api/jobs/{job}", job_status, methods=["GET"]),
        Route("/api/jobs/{job}", cancel_job, methods=["DELETE"]),
        Route("/api/jobs/{job}/result", job_result),
        Route("/api/jobs/{job}/profile", trained_profile),
        Route("/api/jobs/{job}/results", sweep_results),
        Route("/api/{kind}", answer, methods=["POST"]),
    ]
    routes = [Route("/", home), *api,
              Mount("/static", StaticFiles(packages=[("agents.web", "static")]), name="static"),
              Route("/{page}", page)]
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={InputError: input_error, OSError: input_error,
                                        HTTPException: http_error, Exception: server_error})
    app.state.server = Server(workers, directory)
    return app
