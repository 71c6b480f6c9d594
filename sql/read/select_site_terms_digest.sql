-- A digest of a crawl's TF-IDF vocabulary and statistics (what a page's stored row of term ids
-- means): the row count and an order-independent sum of row hashes. Parameter: crawl_id.
SELECT count(*) || ':' || coalesce(sum(hash(term_id, term, doc_freq, idf)::HUGEINT), 0) AS digest
FROM site_terms WHERE crawl_id = ?;
