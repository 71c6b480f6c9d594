-- A table that belongs to the site, not to a crawl (decisions, signals), whole into the new
-- published copy. {table} is substituted from the published copy's own table list only.
INSERT INTO published.{table} BY NAME
SELECT * FROM {table};
