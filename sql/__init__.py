"""linkpipe's SQL files; this folder installs as the package ``linkpipe.sql`` (see pyproject.toml)."""
