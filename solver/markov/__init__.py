"""The state-graph backend: every reachable state held one by one (``graph``), stage
games batched and ordered by dependency (``stages``), backward induction (``backward``),
evaluation of a fixed pair (``evaluate``), the best response (``response``) and
regularised play (``regularized``). ``solver.solve`` decides when it answers."""
