"""Quotes (see «Quotes…» issue): models arrive with that capability."""
