-- The registered row of a pruned crawl (its partitions are deleted in the same transaction).
DELETE FROM crawls WHERE crawl_id = ?;
