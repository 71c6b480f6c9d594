SELECT s.url, s.title, s.h1, s.slug_words, s.main_text
FROM page_summaries s WHERE s.crawl_id = ? ORDER BY s.url;
