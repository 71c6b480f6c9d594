"""Algorithms of linkpipe, grouped by domain; no Dagster import anywhere below this package."""
