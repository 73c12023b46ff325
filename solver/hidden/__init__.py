"""Hidden information: the sequence form of a game's tree and its exact solution by
linear programming (``sequence``), and CFR+ (``cfr``)."""
