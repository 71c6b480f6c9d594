INSERT INTO page_signals (kind, url, clicks, impressions, position, conversions, backlinks, priority, source_file)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?);
