"""Peagen's stand-in for the `openevolve` package, for evaluators written for OpenEvolve.

Only what such evaluators import is provided (`openevolve.evaluation_result`). Peagen's
adapter puts this directory at the END of sys.path, so a real openevolve installed in the
sandbox's environment wins over it.
"""
