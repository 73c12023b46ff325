"""``duel sweep``: a grid of duels solved into one Parquet file, for designers."""

from __future__ import annotations

from pathlib import Path

from solver.errors import InputError

from .common import emit_json


def run(args) -> int:
    # the sweep's modules (pyarrow, ray, the solver) only load for this command
    from agents.sweep import make_backend, run_sweep

    from .checks import sweep_grid

    grid = sweep_grid(args)
    max_cells = args.max_cells
    cells = grid.cells(max_cells)  # refused here, before a backend starts
    if args.personalities:
        from agents.personalities import check_strength
        from agents.sweep.personalities import check_library_request

        names = check_library_request(args.system, [n.strip() for n in (
            args.temperaments or "").split(",") if n.strip()])
        check_strength(args.strength)
        folder = Path(args.personalities)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"--personalities {folder}: give a folder (that is a file)")
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
