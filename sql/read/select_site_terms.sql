SELECT term_id, term, doc_freq, idf FROM site_terms WHERE crawl_id = ? ORDER BY term_id;
