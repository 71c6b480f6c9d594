-- Every row of a site table (decisions, signals) of the published copy being updated, before
-- it is copied whole again. {table} is substituted from the published copy's own table list.
DELETE FROM published.{table};
