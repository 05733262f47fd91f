"""The configurator's engine: everything that computes, in plain Python.

Types (`types`), sentences (`phrase`), builds and prices (`builds`), the model library and calibration,
the build rules (`rules/`), `validate`, `fixes`, `estimate` and `recommend`. Nothing here imports Django,
DRF or any other part of the project (tests/configurator/test_engine_layout.py keeps it so): the doors
(`configurator/api/`, `configurator/web/`, `quotes/`) and services call in, the engine never calls out.
"""
