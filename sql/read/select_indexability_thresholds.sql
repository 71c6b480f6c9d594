-- The thresholds the indexability rules used on one crawl: listing, thin (the site's, then
-- each page type measured apart), near_duplicate. Parameters: crawl_id.
SELECT rule, page_type, threshold, mode, median, pages, basis
FROM indexability_thresholds
WHERE crawl_id = ?
ORDER BY CASE rule WHEN 'listing' THEN 0 WHEN 'thin' THEN 1 ELSE 2 END,
         page_type NULLS FIRST;
