-- linkpipe schema: every table is keyed by crawl_id (and shard for page-level assets).
-- Created idempotently by linkpipe.lib.storage.connect().

CREATE TABLE IF NOT EXISTS crawls (
    crawl_id VARCHAR PRIMARY KEY,
    start_url VARCHAR,
    source VARCHAR,            -- crawler | screaming_frog | warc | url_list
    source_path VARCHAR,
    config_json VARCHAR,
    created_at TIMESTAMP DEFAULT current_timestamp,
    crawl_stats JSON               -- pages, errors and skipped URLs by reason, bytes, timings
);

CREATE TABLE IF NOT EXISTS crawl_pages (
    crawl_id VARCHAR NOT NULL,
    url VARCHAR NOT NULL,
    shard INTEGER NOT NULL,
    original_url VARCHAR,
    final_url VARCHAR,
    status INTEGER,
    redirect_chain VARCHAR[],
    redirect_loop BOOLEAN,
    content_type VARCHAR,
    charset VARCHAR,
    canonical VARCHAR,
    meta_robots VARCHAR,
    x_robots_tag VARCHAR,
    hreflang JSON,
    title VARCHAR,
    h1 VARCHAR,
    meta_description VARCHAR,
    html_z BLOB,               -- earlier code's crawls only: the HTML is in page_html
    content_hash VARCHAR,
    depth INTEGER,
    fetched_at VARCHAR,
    response_ms DOUBLE,
    byte_size BIGINT,
    truncated BOOLEAN,
    in_sitemap BOOLEAN,
    sitemap_lastmod VARCHAR,
    robots_disallowed BOOLEAN,
    etag VARCHAR,
    last_modified VARCHAR,
    not_modified BOOLEAN,
    page_type VARCHAR,
    error VARCHAR
);

CREATE TABLE IF NOT EXISTS crawl_links (
    crawl_id VARCHAR NOT NULL,
    source_url VARCHAR NOT NULL,
    target_url VARCHAR NOT NULL,
    anchor_text VARCHAR,
    rel VARCHAR,
    nofollow BOOLEAN,
    position VARCHAR,
    is_image BOOLEAN,
    internal BOOLEAN
);

-- Pages' HTML and the crawler's parses, kept once by content and shared by the crawls that
-- have it (a page unchanged since the last crawl writes neither again); rows no kept crawl
-- has are deleted with old crawls (lib/retention.py). Not published.
-- HTML (zlib-compressed, decoded) by content_hash, the sha1 of the decoded HTML.
CREATE TABLE IF NOT EXISTS page_html (
    content_hash VARCHAR PRIMARY KEY,
    html_z BLOB NOT NULL
);

-- The crawler's parse of each HTML page (lib/crawl/stored_parse.py: metadata, hrefs and the
-- links as found, zlib-compressed JSON with the key of the code and settings that made it), by
-- URL and content: a page that answers 304 on the next crawl takes it instead of being parsed
-- again.
CREATE TABLE IF NOT EXISTS page_parses (
    url VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL,
    parse_z BLOB NOT NULL,
    PRIMARY KEY (url, content_hash)
);

-- Earlier code's crawls kept each page's parse here, a row a crawl; read, never written.
CREATE TABLE IF NOT EXISTS crawl_parses (
    crawl_id VARCHAR NOT NULL,
    url VARCHAR NOT NULL,
    parse_z BLOB NOT NULL
);

CREATE TABLE IF NOT EXISTS indexable_pages (
    crawl_id VARCHAR NOT NULL,
    url VARCHAR NOT NULL,
    shard INTEGER NOT NULL,
    indexable BOOLEAN NOT NULL,
    reason VARCHAR,            -- NULL when indexable; else the first exclusion rule that matched
    detail VARCHAR,            -- e.g. the canonical target or the duplicate's representative
    page_type VARCHAR,         -- blog | guide | glossary | commercial | listing | home | page ...
    word_count INTEGER,
    content_hash VARCHAR,
    title VARCHAR
);
-- What the rules read of the main area (lib/content/main_area.py TextFacts; NULL when the fetch
-- already excluded the page), kept for the next crawl while the page's HTML is unchanged.
ALTER TABLE indexable_pages ADD COLUMN IF NOT EXISTS link_share DOUBLE;
ALTER TABLE indexable_pages ADD COLUMN IF NOT EXISTS main_links INTEGER;
ALTER TABLE indexable_pages ADD COLUMN IF NOT EXISTS child_links INTEGER;
ALTER TABLE indexable_pages ADD COLUMN IF NOT EXISTS text_key VARCHAR;  -- hash of the main text
ALTER TABLE indexable_pages ADD COLUMN IF NOT EXISTS simhash UBIGINT;
ALTER TABLE indexable_pages ADD COLUMN IF NOT EXISTS facts_digest VARCHAR;  -- code that measured

-- The thresholds the indexability rules used on a crawl (asset indexable_pages, written with
-- its rows): measured on the site (auto), set in the settings (config), or the fixed default
-- when too few pages could be measured. A page type without a thin row uses the site's.
CREATE TABLE IF NOT EXISTS indexability_thresholds (
    crawl_id VARCHAR NOT NULL,
    rule VARCHAR NOT NULL,     -- thin | listing | near_duplicate
    page_type VARCHAR,         -- thin: the page type measured apart; NULL: the whole site
    threshold DOUBLE,          -- thin: fewer words; listing: this link share or more;
                               -- near_duplicate: at most this many SimHash bits apart
    mode VARCHAR,              -- auto | config | default
    median DOUBLE,             -- of what was measured: words, link share, bits to the nearest page
    pages INTEGER,             -- pages measured
    basis VARCHAR              -- how it was found: "0.5 x median 56 words", "set in config"...
);

CREATE TABLE IF NOT EXISTS page_summaries (
    crawl_id VARCHAR NOT NULL,
    shard INTEGER NOT NULL,
    url VARCHAR NOT NULL,
    content_hash VARCHAR,
    title VARCHAR,
    h1 VARCHAR,
    slug_words VARCHAR,
    main_text VARCHAR,         -- trafilatura main content; offsets below index into it
    summary VARCHAR,           -- compact identity text that gets embedded
    summary_hash VARCHAR,      -- sha1(summary): the embedding cache key with the model id
    word_count INTEGER,
    extraction_error VARCHAR,
    extractor VARCHAR          -- digest of the extraction code and libraries that made the row
);
-- Files written before the extractor digest: the column is added at the end, as above; their
-- rows have none and are extracted again once.
ALTER TABLE page_summaries ADD COLUMN IF NOT EXISTS extractor VARCHAR;

-- The digest of what the page's sentences and in-text links were extracted from
-- (lib/stages/page_summaries.py, text_key: URL, HTML, extractor): the key of its rows in
-- text_sentences and text_links, which every crawl that keeps the page's extraction shares.
-- Rows of earlier code got a key of their own crawl when their page_sentences and
-- page_text_links rows moved there (schema/migrate_page_texts.sql).
ALTER TABLE page_summaries ADD COLUMN IF NOT EXISTS text_key VARCHAR;

-- The sentences of pages' main texts, stored once by text_key (not a partition: kept while a
-- crawl's page_summaries row has the key). Read by crawl and URL through the page_sentences
-- view (schema/views.sql).
CREATE TABLE IF NOT EXISTS text_sentences (
    text_key VARCHAR NOT NULL,
    paragraph_idx INTEGER,
    sentence_idx INTEGER,
    block_kind VARCHAR,        -- paragraph | heading | item | quote | cell | preformatted
    start_offset INTEGER,      -- character offsets into page_summaries.main_text
    end_offset INTEGER,
    sentence VARCHAR
);

-- The links inside pages' main texts, stored once by text_key as text_sentences are (read by
-- crawl and URL through the page_text_links view).
CREATE TABLE IF NOT EXISTS text_links (
    text_key VARCHAR NOT NULL,
    target_url VARCHAR,
    anchor_text VARCHAR,
    start_offset INTEGER,      -- character offsets into page_summaries.main_text
    end_offset INTEGER
);

CREATE TABLE IF NOT EXISTS embedding_cache (
    text_hash VARCHAR NOT NULL,
    model_id VARCHAR NOT NULL,
    embedding FLOAT[] NOT NULL,
    created_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (text_hash, model_id)
);

-- dependency parses of sentences judged by anchor placement, by sentence hash and parser
-- (see linkpipe.lib.stages.parse_cache); a cache of the site, like embedding_cache
CREATE TABLE IF NOT EXISTS parse_cache (
    sentence_hash VARCHAR NOT NULL,
    parser_id VARCHAR NOT NULL,
    parse BLOB NOT NULL,
    created_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (sentence_hash, parser_id)
);

CREATE TABLE IF NOT EXISTS page_embeddings (
    crawl_id VARCHAR NOT NULL,
    shard INTEGER NOT NULL,
    url VARCHAR NOT NULL,
    text_hash VARCHAR NOT NULL,
    model_id VARCHAR NOT NULL,
    cache_hit BOOLEAN,
    embedding FLOAT[] NOT NULL
);

CREATE TABLE IF NOT EXISTS ann_indexes (
    crawl_id VARCHAR NOT NULL,
    model_id VARCHAR,
    index_kind VARCHAR,        -- flat_ip | ivf_flat
    n_vectors INTEGER,
    dim INTEGER,
    recall_at_k DOUBLE,        -- measured against exact search on a sample
    recall_k INTEGER,
    build_seconds DOUBLE,
    urls VARCHAR[],
    index_blob BLOB
);

CREATE TABLE IF NOT EXISTS link_edges (
    crawl_id VARCHAR NOT NULL,
    source_url VARCHAR NOT NULL,
    target_url VARCHAR NOT NULL,     -- as linked (normalized)
    resolved_url VARCHAR NOT NULL,   -- after redirects and canonicals
    anchor_text VARCHAR,
    position VARCHAR,
    nofollow BOOLEAN
);

CREATE TABLE IF NOT EXISTS page_link_metrics (
    crawl_id VARCHAR NOT NULL,
    url VARCHAR NOT NULL,
    indexable BOOLEAN,
    in_sitemap BOOLEAN,
    content_inlinks INTEGER,
    unique_content_inlinks INTEGER,
    nav_inlinks INTEGER,
    content_outlinks INTEGER,
    nav_outlinks INTEGER,
    click_depth INTEGER,             -- NULL when unreachable by followed links from the start page
    pagerank DOUBLE,                 -- internal PageRank, sums to 1 over the crawl
    link_score DOUBLE,               -- PageRank rescaled to 0..100 (log)
    is_orphan BOOLEAN,
    is_deep BOOLEAN
);

CREATE TABLE IF NOT EXISTS candidate_pairs (
    crawl_id VARCHAR NOT NULL,
    shard INTEGER NOT NULL,
    source_url VARCHAR NOT NULL,
    target_url VARCHAR NOT NULL,
    semantic_sim DOUBLE,             -- cosine of the pages' embeddings
    lexical_sim DOUBLE,              -- TF-IDF cosine of main texts
    title_match DOUBLE,              -- quality of the best anchor when it is an exact name (0..1)
    mention_score DOUBLE,            -- link probability of the target's name found in the source
    mention_phrase VARCHAR,          -- that name (title, H1 or an anchor other pages use)
    mention_pages INTEGER,           -- other pages whose main text contains the name
    mention_links INTEGER,           -- of them, pages that link the target from their content
                                     -- (the three counted in this crawl: site_names, mention_key)
    cocitation DOUBLE,               -- pages linking to both, normalised (0..1)
    shared_neighbors DOUBLE,         -- Jaccard of linked-page sets (0..1)
    already_linked_content BOOLEAN,
    already_linked_nav BOOLEAN,
    anchor_text VARCHAR,
    anchor_start INTEGER,
    anchor_end INTEGER,
    anchor_source VARCHAR,           -- title | h1 | known_anchor | phrase | none
    anchor_quality DOUBLE,
    sentence VARCHAR,
    sentence_start INTEGER,
    paragraph_idx INTEGER,
    anchor_alternatives JSON,        -- further placements, best first, for anchor variety
    anchor_key VARCHAR,              -- what the placements depend on (links/anchor_reuse.py)
    mention_key VARCHAR              -- site_names.name_key of mention_phrase
);
-- Files written before anchor reuse and mention keys: the columns are added at the end.
ALTER TABLE candidate_pairs ADD COLUMN IF NOT EXISTS anchor_key VARCHAR;
ALTER TABLE candidate_pairs ADD COLUMN IF NOT EXISTS mention_key VARCHAR;
-- The row's pair digest: what the row is computed from (lib/links/source_reuse.py); a later
-- crawl's row of the same digest is copied from this one.
ALTER TABLE candidate_pairs ADD COLUMN IF NOT EXISTS pair_digest VARCHAR;
-- Files written before 2026-12-07 held each pair's rank among the source's embedding
-- neighbours: no stage read it, and an edited page moving among a source's hits changed it on
-- every pair below, so that those rows were computed again (rank them by semantic_sim).
ALTER TABLE candidate_pairs DROP COLUMN IF EXISTS semantic_rank;
-- What the pair's names-only placements depend on (the source's text and the target's names,
-- not its vector: lib/links/anchor_reuse.py): the next crawl's candidate step looks them up by
-- it, so that an edited page whose names stay does not send every source near it to place.
ALTER TABLE candidate_pairs ADD COLUMN IF NOT EXISTS name_key VARCHAR;

-- The row digest of each source of a candidate shard: everything its candidate_pairs rows are
-- computed from (what retrieval found and the facts of the pages involved, code, model and
-- settings). A later crawl's source of the same digest copies its rows
-- (lib/links/source_reuse.py).
CREATE TABLE IF NOT EXISTS candidate_sources (
    crawl_id VARCHAR NOT NULL,
    shard INTEGER NOT NULL,
    source_url VARCHAR NOT NULL,
    digest VARCHAR NOT NULL
);
-- The source's gate digest and the name keys its text holds (lib/links/source_gate.py): a
-- later crawl's source whose gate digest is this one, and none of whose targets changed, is
-- copied without retrieval.
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS gate_digest VARCHAR;
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS name_keys VARCHAR[];
-- The similarity of each embedding hit the gate read (float32 bytes, in the hits' order): a
-- later crawl compares them hit by hit, so that a touched page's new similarity stops only
-- its own pairs.
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS gate_sims BLOB;
-- The URL of each embedding hit the gate read ('' for none), how many hits the search
-- returned, and the index they were searched on (kind, lists, model): a later crawl takes
-- them instead of searching when no changed vector reaches the similarity of the last hit
-- read (lib/links/kept_hits.py).
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS gate_hits VARCHAR[];
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS hits_searched INTEGER;
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS search_salt VARCHAR;
-- The TF-IDF neighbours the lexical index found for the source (URLs, best first), the
-- partial sum at its cut (NULL: none cut) and the cosine of the last one when the list is
-- full (else 0): a later crawl takes them instead of querying when no changed row can move
-- them (lib/links/kept_lexical.py).
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS lexical_hits VARCHAR[];
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS lexical_cut DOUBLE;
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS lexical_floor DOUBLE;
-- The highest the cut may be when the list was kept while pages entered the ones the index
-- orders (NULL: lexical_cut is exact; lib/links/kept_lexical.py).
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS lexical_cut_high DOUBLE;
-- The pages of highest partial sum below the cut, best first, and those sums (up to four;
-- NULL: not known): a later crawl in which pages leave the ones ordered takes them in instead
-- of querying (lib/links/list_next.py). They replace one such page stored alone.
ALTER TABLE candidate_sources DROP COLUMN IF EXISTS lexical_next;
ALTER TABLE candidate_sources DROP COLUMN IF EXISTS lexical_next_partial;
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS lexical_nexts VARCHAR[];
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS lexical_next_partials DOUBLE[];
-- The page of highest cosine among those the index ordered after the list, and that cosine
-- (NULL: not known): a later crawl in which a page of the list falls below the floor patches
-- the list with it instead of querying (lib/links/list_patch.py).
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS lexical_runner VARCHAR;
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS lexical_runner_cosine DOUBLE;
-- The digest of the source's text its name keys were looked up in (SourceText.digest): a later
-- crawl whose source has this text takes the stored keys instead of tokenising it, whatever
-- else its gate digest read changed.
ALTER TABLE candidate_sources ADD COLUMN IF NOT EXISTS text_digest VARCHAR;

-- The digest of everything a shard's candidate_pairs rows were computed from (site pages,
-- embeddings, links, the shard's sentences, settings, model, code): a later crawl of the same
-- digest copies the rows instead of recomputing them (lib/stages/candidate_pairs.py).
CREATE TABLE IF NOT EXISTS candidate_inputs (
    crawl_id VARCHAR NOT NULL,
    shard INTEGER NOT NULL,
    digest VARCHAR NOT NULL
);

-- The digest of everything a crawl's site models were computed from (pages' names and main
-- texts, link edges, index settings, code): a later crawl of the same digest copies the four
-- site_* tables instead of refitting (lib/stages/site_models.py).
CREATE TABLE IF NOT EXISTS site_model_inputs (
    crawl_id VARCHAR NOT NULL,
    digest VARCHAR NOT NULL
);

-- The digests of everything a crawl's link graph (link_edges, page_link_metrics) and its topic
-- clusters (topic_clusters, cluster_summary) were computed from: a later crawl of the same
-- digest copies those rows (lib/stages/link_graph.py, lib/stages/topic_clusters.py).
CREATE TABLE IF NOT EXISTS graph_inputs (
    crawl_id VARCHAR NOT NULL,
    digest VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS cluster_inputs (
    crawl_id VARCHAR NOT NULL,
    digest VARCHAR NOT NULL
);
-- The digest of everything a crawl's indexable pages and thresholds were computed from
-- (crawled URLs, their HTML by content hash, the rules, code): a later crawl of the same
-- digest copies those rows (lib/stages/indexable_pages.py).
CREATE TABLE IF NOT EXISTS indexable_inputs (
    crawl_id VARCHAR NOT NULL,
    digest VARCHAR NOT NULL
);

-- The full placements (names and windows, best first) of the pairs a crawl's scoring kept, by
-- anchor key (lib/stages/kept_anchors.py). The candidate step places names only; a later
-- crawl's kept pair of the same key takes these instead of placing its windows again.
CREATE TABLE IF NOT EXISTS kept_placements (
    crawl_id VARCHAR NOT NULL,
    anchor_key VARCHAR NOT NULL,
    anchor_text VARCHAR,
    anchor_start INTEGER,
    anchor_end INTEGER,
    anchor_source VARCHAR,
    anchor_quality DOUBLE,
    sentence VARCHAR,
    sentence_start INTEGER,
    paragraph_idx INTEGER,
    anchor_alternatives JSON,
    anchors_complete BOOLEAN  -- false: the first placements only (lib/links/anchor_ledger.py)
);
ALTER TABLE kept_placements ADD COLUMN IF NOT EXISTS anchors_complete BOOLEAN;

-- The digest of everything a crawl's link_opportunities, cannibalisation_pairs and
-- scoring_weights were computed from (every shard's candidate_inputs digest, page facts,
-- editors' decisions, scoring settings, code): a later crawl of the same digest copies those
-- rows instead of scoring again (lib/stages/link_opportunities.py).
CREATE TABLE IF NOT EXISTS opportunity_inputs (
    crawl_id VARCHAR NOT NULL,
    digest VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS link_opportunities (
    crawl_id VARCHAR NOT NULL,
    source_url VARCHAR NOT NULL,
    target_url VARCHAR NOT NULL,
    rank INTEGER,                    -- within the source, 1 = best
    score DOUBLE,
    relevance DOUBLE,
    semantic_sim DOUBLE,
    lexical_sim DOUBLE,
    title_match DOUBLE,
    mention_score DOUBLE,
    mention_phrase VARCHAR,
    graph_score DOUBLE,
    target_need DOUBLE,
    business_value DOUBLE,
    source_authority DOUBLE,
    direction_factor DOUBLE,
    source_type VARCHAR,
    target_type VARCHAR,
    anchor_text VARCHAR,
    sentence VARCHAR,
    anchor_start INTEGER,
    anchor_end INTEGER,
    paragraph_idx INTEGER,
    placement VARCHAR,               -- in_sentence | needs_new_sentence
    decision VARCHAR,                -- accepted | deferred | NULL (rejected pairs never appear)
    reason VARCHAR,
    confidence DOUBLE                -- score calibrated per site, 0..1 (links/calibration.py)
);
ALTER TABLE link_opportunities ADD COLUMN IF NOT EXISTS confidence DOUBLE;

CREATE TABLE IF NOT EXISTS cannibalisation_pairs (
    crawl_id VARCHAR NOT NULL,
    url_a VARCHAR NOT NULL,
    url_b VARCHAR NOT NULL,
    semantic_sim DOUBLE,
    title_sim DOUBLE,
    reason VARCHAR
);

-- The relevance weights a crawl's opportunities were scored with: fitted on the site's own
-- content links or the configured defaults, and why (lib/links/weights.py).
CREATE TABLE IF NOT EXISTS scoring_weights (
    crawl_id VARCHAR NOT NULL,
    method VARCHAR,
    w_semantic DOUBLE,
    w_lexical DOUBLE,
    w_title DOUBLE,
    w_mention DOUBLE,
    w_graph DOUBLE,
    min_relevance DOUBLE,
    positives INTEGER,
    negatives INTEGER,
    held_out_positives INTEGER,
    held_out_negatives INTEGER,
    ap_default DOUBLE,
    ap_fitted DOUBLE,
    reason VARCHAR
);

CREATE TABLE IF NOT EXISTS topic_clusters (
    crawl_id VARCHAR NOT NULL,
    url VARCHAR NOT NULL,
    cluster_id INTEGER,
    cluster_label VARCHAR,
    centroid_sim DOUBLE,
    is_bridge BOOLEAN,               -- close to a second cluster's centroid too
    second_cluster_id INTEGER
);

CREATE TABLE IF NOT EXISTS cluster_summary (
    crawl_id VARCHAR NOT NULL,
    cluster_id INTEGER,
    cluster_label VARCHAR,
    size INTEGER,
    internal_content_links INTEGER,
    link_density DOUBLE,             -- content links inside / possible pairs
    is_gap BOOLEAN                   -- loosely linked inside: a cluster gap
);

CREATE TABLE IF NOT EXISTS link_decisions (
    source_url VARCHAR NOT NULL,
    target_url VARCHAR NOT NULL,
    decision VARCHAR NOT NULL,       -- accepted | rejected | deferred
    decided_by VARCHAR,
    decided_at TIMESTAMP,
    note VARCHAR,
    crawl_id VARCHAR,                -- the crawl the editor reviewed
    PRIMARY KEY (source_url, target_url)
);

CREATE TABLE IF NOT EXISTS page_signals (
    kind VARCHAR NOT NULL,           -- gsc | analytics | backlinks | priority
    url VARCHAR NOT NULL,            -- as in the imported file
    clicks DOUBLE,
    impressions DOUBLE,
    position DOUBLE,
    conversions DOUBLE,
    backlinks DOUBLE,
    priority DOUBLE,
    source_file VARCHAR,
    imported_at TIMESTAMP DEFAULT current_timestamp
);

-- Columns added after the first release: existing databases gain them on the next open.
ALTER TABLE crawls ADD COLUMN IF NOT EXISTS crawl_stats JSON;
ALTER TABLE candidate_pairs ADD COLUMN IF NOT EXISTS mention_score DOUBLE;
ALTER TABLE candidate_pairs ADD COLUMN IF NOT EXISTS mention_phrase VARCHAR;
ALTER TABLE candidate_pairs ADD COLUMN IF NOT EXISTS mention_pages INTEGER;
ALTER TABLE candidate_pairs ADD COLUMN IF NOT EXISTS mention_links INTEGER;
ALTER TABLE link_opportunities ADD COLUMN IF NOT EXISTS mention_score DOUBLE;
ALTER TABLE link_opportunities ADD COLUMN IF NOT EXISTS mention_phrase VARCHAR;

-- Site models (asset site_models, one per crawl): what every candidate shard reads instead of
-- rebuilding it. TF-IDF vocabulary and page rows, the name dictionary with its link counts,
-- and one summary row with the lexical index's settings and measured recall.
CREATE TABLE IF NOT EXISTS site_models (
    crawl_id VARCHAR NOT NULL,
    n_pages INTEGER,
    n_terms INTEGER,
    n_names INTEGER,                 -- (name, target) rows of site_names
    posting_cap INTEGER,             -- lexical index: pages kept per term, where it weighs most
    rerank INTEGER,                  -- lexical index: best partial matches scored exactly
    query_terms INTEGER,             -- lexical index: heaviest terms of a page that look up
    lexical_recall_at_k DOUBLE,      -- index top-k against exact TF-IDF top-k, on a sample
    recall_k INTEGER,
    recall_queries INTEGER,
    build_seconds DOUBLE
);
ALTER TABLE site_models ADD COLUMN IF NOT EXISTS fitted_in VARCHAR;  -- crawl whose pages the
                                     -- TF-IDF statistics were counted on (this one: refitted)
ALTER TABLE site_models ADD COLUMN IF NOT EXISTS fit_pages INTEGER;  -- pages of that count
ALTER TABLE site_models ADD COLUMN IF NOT EXISTS recall_measured_in VARCHAR;  -- crawl whose
                                     -- index the recall was measured on: this one, or the one
                                     -- whose settings an update of its models kept

CREATE TABLE IF NOT EXISTS site_terms (
    crawl_id VARCHAR NOT NULL,
    term_id INTEGER NOT NULL,        -- column of the TF-IDF rows; terms in stem order, then
                                     -- the stems too common to weigh (more than half the pages)
    term VARCHAR NOT NULL,           -- a stem (see lib/text/lexical.py)
    doc_freq INTEGER,                -- pages whose title, H1 or main text has it, in the
                                     -- crawl of the fit (site_models.fitted_in)
    idf DOUBLE                       -- ln((1 + pages) / (1 + doc_freq)) + 1; NULL for a stem too
                                     -- common to weigh (kept for the ubiquitous-anchor rule)
);

CREATE TABLE IF NOT EXISTS site_page_terms (
    crawl_id VARCHAR NOT NULL,
    url VARCHAR NOT NULL,
    term_ids INTEGER[],              -- the page's TF-IDF row (unit length), heaviest first
    weights DOUBLE[]
);

CREATE TABLE IF NOT EXISTS site_names (
    crawl_id VARCHAR NOT NULL,
    name_key VARCHAR NOT NULL,       -- the name's stems joined by spaces
    target_url VARCHAR NOT NULL,     -- the page it names
    phrase VARCHAR,                  -- as its title, H1 or a known anchor spells it
    kind VARCHAR,                    -- title | h1 | known_anchor
    mentioned_by INTEGER,            -- pages whose main text contains the name
    linked_by INTEGER,               -- of them, pages that link the target from their content
    self_mention BOOLEAN             -- the target's own main text contains it
);

-- How each crawl's run went. A crawl is shown by the v_* views only once complete; the rest
-- are listed by v_crawl_runs with their status and error, never as empty data.
CREATE TABLE IF NOT EXISTS crawl_runs (
    crawl_id VARCHAR PRIMARY KEY,
    status VARCHAR NOT NULL,         -- running | partial | complete | failed | interrupted | killed
    step VARCHAR,                    -- the step running, or the one that failed
    started_at TIMESTAMP,
    finished_at TIMESTAMP,
    error VARCHAR,                   -- one line, for failed and killed runs
    owner VARCHAR                    -- host:pid:start-ticks of the process that runs it
);

-- Files written before crawl_runs existed: a crawl with suggestions had completed.
INSERT INTO crawl_runs (crawl_id, status, finished_at)
SELECT c.crawl_id, 'complete', c.created_at FROM crawls c
WHERE EXISTS (SELECT 1 FROM link_opportunities o WHERE o.crawl_id = c.crawl_id)
  AND NOT EXISTS (SELECT 1 FROM crawl_runs r WHERE r.crawl_id = c.crawl_id);

-- Which schema and views the file holds: the sha1 of schema/create_tables.sql and
-- schema/views.sql that last ran on it. storage.connect skips both when it matches.
CREATE TABLE IF NOT EXISTS linkpipe_schema (
    id INTEGER PRIMARY KEY,
    sql_hash VARCHAR NOT NULL
);

-- What-if scenarios (`linkpipe whatif`): each page's PageRank, click depth and orphan status
-- before and after a crawl's chosen suggestions are implemented, keyed by crawl_id + scenario;
-- a rerun of the scenario replaces its rows; pruned and published with its crawl.
CREATE TABLE IF NOT EXISTS whatif_pages (
    crawl_id VARCHAR NOT NULL,
    scenario VARCHAR NOT NULL,       -- accepted | top-N
    url VARCHAR NOT NULL,
    indexable BOOLEAN,
    links_added INTEGER,             -- chosen suggestions that point to the page
    pagerank_before DOUBLE,          -- = page_link_metrics.pagerank of the crawl
    pagerank_after DOUBLE,
    pagerank_gain DOUBLE,            -- after - before
    click_depth_before INTEGER,      -- NULL when unreachable from the start page
    click_depth_after INTEGER,
    is_orphan_before BOOLEAN,
    is_orphan_after BOOLEAN,
    created_at TIMESTAMP DEFAULT current_timestamp
);
