"""``duel serve``: the browser screen and its JSON API, on this machine by default."""

from __future__ import annotations

from solver.errors import InputError


def run(args) -> int:
    if not 0 < args.port < 65536:
        raise InputError(f"--port must be 1..65535, got {args.port}")
    if args.workers < 1:
        raise InputError(f"--workers must be 1 or more, got {args.workers}")
    import uvicorn

    from ..web.app import create_app
    app = create_app(allow_origins=args.allow_origin, workers=args.workers)
    print(f"duel serve: http://{args.host}:{args.port}/ (Ctrl-C stops it)")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"duel serve: listening on {args.host}: anyone who can reach this machine "
              "can use the screen and its API, run solves on it and upload files")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
