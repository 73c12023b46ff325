"""``scipy.sparse`` under the name ``sp``, imported at its first use.

Importing it takes about 0.3 s (scipy's array-API layer comes with it), while a question
answered from the answer store, or refused, needs no sparse matrix: the solver's modules
name it through ``sp`` so that importing them costs nothing until a matrix is built.
The import machinery's lock makes the first use safe from any thread.
"""

from __future__ import annotations


class _SparseOnDemand:
    def __getattr__(self, name: str):
        import scipy.sparse

        return getattr(scipy.sparse, name)


sp = _SparseOnDemand()
