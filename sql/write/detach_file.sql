-- The attached file {alias} let go (DuckDB checkpoints it and releases its lock).
DETACH {alias};
