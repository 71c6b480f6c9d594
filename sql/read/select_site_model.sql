SELECT n_pages, n_terms, n_names, posting_cap, rerank, query_terms, lexical_recall_at_k,
       recall_k, recall_queries, fitted_in, fit_pages, recall_measured_in
FROM site_models WHERE crawl_id = ?;
