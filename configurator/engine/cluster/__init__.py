"""Clusters of identical GPU nodes (issue 39): parts, sizing, rules, estimates across nodes, recommendations.

Pure Python like the rest of the engine: `parts` (the cluster catalog's specs), `types` (ClusterSpec in,
ClusterBuild out), `sizing` (fabric, front-end, management, storage, racks, PDUs, cables), `rules` (findings),
`estimate` (serving and training across nodes), `recommend` (a cluster for a workload one server cannot hold).
"""
