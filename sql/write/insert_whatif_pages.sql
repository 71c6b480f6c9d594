-- One what-if scenario's pages, read from the registered frame _linkpipe_whatif.
-- Params: crawl_id, scenario.
INSERT INTO whatif_pages BY NAME
SELECT ? AS crawl_id, ? AS scenario, * FROM _linkpipe_whatif;
