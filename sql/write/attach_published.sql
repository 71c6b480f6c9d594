-- The new published copy being written, attached to the source database. Parameter: its path.
ATTACH ? AS published;
