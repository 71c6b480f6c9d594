-- `linkpipe report`: each clustered page of a crawl with its embedding, cluster and title,
-- for the 2D map of topic clusters. ? = crawl_id.
SELECT c.url, i.title, c.cluster_id, c.cluster_label, c.is_bridge, e.embedding
FROM topic_clusters c
JOIN page_embeddings e ON e.crawl_id = c.crawl_id AND e.url = c.url
LEFT JOIN indexable_pages i ON i.crawl_id = c.crawl_id AND i.url = c.url
WHERE c.crawl_id = ?
ORDER BY c.cluster_id, c.url;
