"""``duel sweep``: a grid of duels solved into one Parquet file, for designers."""

from __future__ import annotations

from .common import _argparse_type as argparse_type
from .common import add_json, emit_json, parse_option

GRID_HELP = ("an axis of the grid: a.FIELD=1..5 (or 10..50:10), b.FIELD=V1,V2, "
             "a=SHEET,SHEET (';' between sheets that hold commas), o.OPTION=V1,V2 or "
             "ruleset=FILE,FILE (repeatable: the cells are the product of the axes)")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sweep", help="solve a grid of duels into a results file (balance for designers)",
        description="Solve every duel of a grid of sheets, options and rulesets exactly and "
                    "write one row per duel to a Parquet file; an interrupted sweep resumes "
                    "where it stopped.")
    parser.add_argument("system", help="duel system (see `duel systems`)")
    parser.add_argument("--grid", action="append", default=[], metavar="AXIS=VALUES",
                        help=GRID_HELP)
    parser.add_argument("--a", default="", metavar="SHEET",
                        help="A's sheet, which a.FIELD axes change (default: the "
                             "system's default sheet)")
    parser.add_argument("--b", default="", metavar="SHEET", help="B's sheet")
    parser.add_argument("--ruleset", metavar="FILE", help="TOML file overriding [default] rules")
    parser.add_argument("-o", "--option", dest="options", action="append", default=[],
                        type=argparse_type(parse_option), metavar="KEY=VALUE",
                        help="a system option for every cell (repeatable)")
    parser.add_argument("--out", required=True, metavar="FILE.parquet",
                        help="the results file (its journal is kept beside it until done)")
    parser.add_argument("--max-cells", type=int, default=None, metavar="N",
                        help="refuse a grid of more cells (default 10000)")
    parser.add_argument("--backend", default="local", choices=("local", "ray"),
                        help="local: a process pool here (default); ray: Ray tasks")
    parser.add_argument("--address", metavar="ADDRESS",
                        help="the Ray cluster to use (default: start Ray here)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="processes (local) or CPUs of the Ray started here; "
                             "default: this machine's cores")
    parser.add_argument("--task-memory", type=float, default=2.0, metavar="GB",
                        help="memory declared to Ray for each cell (default 2)")
    parser.add_argument("--report", metavar="FILE.md",
                        help="also write a designer's reading of the results, with plots")
    parser.add_argument("--personalities", metavar="DIR",
                        help="also a library of NPC profiles: one per cell and temperament "
                             "in DIR, with DIR/index.json")
    parser.add_argument("--temperaments", metavar="NAME,...",
                        help="the temperaments of --personalities (default: all)")
    parser.add_argument("--strength", type=float, default=0.5, metavar="S",
                        help="the profiles' closeness to their temperament in [0, 1] "
                             "(default 0.5)")
    parser.add_argument("--side", choices=("a", "b"), default="a",
                        help="the side the players play (default a): the NPC profiles "
                             "play the other")
    parser.add_argument("--batch", type=int, default=32, metavar="N",
                        help="cells solved between two writes of the journal (default 32; "
                             "it is also written every 10 s)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_json(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    # the sweep's modules (pyarrow, ray, the solver) only load for this command
    from agents.sweep import MAX_CELLS, Grid, make_backend, parse_axis, run_sweep
    from solver.errors import InputError

    if not args.grid:
        raise InputError("give at least one --grid AXIS=VALUES")
    options = dict(args.options)
    for name in options:
        if name in ("a", "b", "ruleset"):
            raise InputError(f"{name} is not given with -o; use --{name}")
    max_cells = MAX_CELLS if args.max_cells is None else args.max_cells
    if max_cells < 1:
        raise InputError(f"--max-cells takes an integer >= 1, got {max_cells}")
    if args.batch < 1:
        raise InputError(f"--batch takes an integer >= 1, got {args.batch}")
    if not args.task_memory > 0:
        raise InputError(f"--task-memory takes a number of GB > 0, got {args.task_memory}")
    grid = Grid(args.system, [parse_axis(text) for text in args.grid],
                {"a": args.a, "b": args.b}, options, args.ruleset)
    cells = grid.cells(max_cells)  # refused here, before a backend starts
    if args.personalities:
        from agents.personalities import check_strength
        from agents.sweep.personalities import check_library_request

        names = check_library_request(args.system, [n.strip() for n in (
            args.temperaments or "").split(",") if n.strip()])
        check_strength(args.strength)
    backend = make_backend(args.backend, args.workers, args.address,
                           int(args.task_memory * 1024**3))
    summary = run_sweep(grid, args.out, backend, max_cells, cells=cells, batch=args.batch,
                        progress=not (args.quiet or args.json))
    document = summary.as_dict()
    if args.personalities:
        from agents.sweep.personalities import build_library
        npc = "b" if args.side == "a" else "a"
        document["personalities"] = str(build_library(cells, args.personalities, names,
                                                      args.strength, npc, backend))
    if args.report:
        from agents.sweep.report import write_report
        document["report"] = str(write_report(args.out, args.report))
    if args.json:
        emit_json(document)
    else:
        print(f"{summary.cells} cells in {summary.out}: {summary.solved} solved now, "
              f"{summary.reused} done before, {summary.from_mirror} read from their mirror "
              f"({summary.seconds:.1f} s)"
              + (f"; report {document['report']}" if args.report else "")
              + (f"; profiles indexed in {document['personalities']}"
                 if args.personalities else ""))
        if summary.unrefined:
            print(f"note: in {summary.unrefined} cells some mixes are optimal but not "
                  "confirmed the least predictable (column unrefined): their odds and "
                  "openings are those of the optimal mixes found")
    return 0
