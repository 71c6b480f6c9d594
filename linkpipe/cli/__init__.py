"""The `linkpipe` console script: one module per command group, shared options in options.py."""
