"""The ``duckdb`` resource's connections (asset metadata, asset checks) open the file as the
stages do: attached to the DuckDB instance this process keeps, let go when the block ends."""

import subprocess
import sys

import pytest
from dagster_duckdb import DuckDBResource

from linkpipe.defs.resources import duckdb_connection
from linkpipe.lib.storage import host, open_db

READ = (
    "import sys, duckdb\n"
    "c = duckdb.connect(sys.argv[1], read_only=True)\n"
    "print(c.execute('SELECT count(*) FROM crawls').fetchone()[0])\n"
)


def test_a_resource_connection_shares_the_process_instance_and_lets_the_file_go(tmp_path):
    db = tmp_path / "r.duckdb"
    with open_db(db):  # the schema, as a stage's first open makes it
        pass
    resource = DuckDBResource(database=str(db))
    with duckdb_connection(resource) as con:
        assert host.attached(db) and host.owns(con)
        assert con.execute("SELECT count(*) FROM crawls").fetchone() == (0,)
        with open_db(db) as inner:  # a stage's open inside the block: the same attachment
            assert host.owns(inner)
    assert not host.attached(db)
    done = subprocess.run(
        [sys.executable, "-c", READ, str(db)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "0"  # no lock left behind


def test_a_failing_block_lets_the_file_go_too(tmp_path):
    db = tmp_path / "f.duckdb"
    with open_db(db):
        pass
    with pytest.raises(RuntimeError), duckdb_connection(DuckDBResource(database=str(db))):
        raise RuntimeError("a check failed")
    assert not host.attached(db)
