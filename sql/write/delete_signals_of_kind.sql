DELETE FROM page_signals WHERE kind = ?;
