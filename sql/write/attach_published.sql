-- The new published copy being written, attached to the source database (after a failed
-- update left it attached to the process's instance, it is let go first). Parameter: its path.
DETACH DATABASE IF EXISTS published;
ATTACH ? AS published;
