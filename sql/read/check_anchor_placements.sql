-- Asset check of link_opportunities: every in-sentence anchor lies inside its sentence.
-- anchor_start/anchor_end are character offsets into page_summaries.main_text of the source
-- (DuckDB's substring and length count characters, as Python does): main_text at the offsets
-- is the anchor text, and the sentence occurs in main_text around it, i.e. inside
-- main_text[max(0, anchor_end - len(sentence)) : anchor_start + len(sentence)]. Then
-- sentence[anchor_start - at : anchor_end - at] is the anchor, where the sentence starts at
-- `at` (? = crawl_id).
WITH p AS (SELECT ?::VARCHAR AS crawl_id),
placed AS (
    SELECT o.source_url, o.target_url, o.anchor_text, o.anchor_start, o.anchor_end,
           o.sentence, s.main_text,
           greatest(o.anchor_end - length(o.sentence), 0) AS window_start
    FROM link_opportunities o JOIN p USING (crawl_id)
    LEFT JOIN page_summaries s ON s.crawl_id = o.crawl_id AND s.url = o.source_url
    WHERE o.placement = 'in_sentence'
),
judged AS (
    SELECT source_url, target_url,
        CASE
            WHEN main_text IS NULL THEN 'the source has no main text'
            WHEN anchor_text IS NULL OR sentence IS NULL OR anchor_start IS NULL
                 OR anchor_end IS NULL THEN 'anchor, offsets or sentence missing'
            WHEN anchor_start < 0 OR anchor_end <= anchor_start
                 OR anchor_end > length(main_text) THEN 'offsets outside the main text'
            WHEN substring(main_text, anchor_start + 1, anchor_end - anchor_start)
                 <> anchor_text THEN 'the text at the offsets is not the anchor'
            WHEN anchor_end - anchor_start > length(sentence)
                 OR NOT contains(
                     substring(main_text, window_start + 1,
                               anchor_start + length(sentence) - window_start),
                     sentence) THEN 'the anchor is not inside its sentence'
        END AS problem
    FROM placed
)
SELECT count(*) AS anchors,
       count(problem) AS misplaced,
       (list(problem || ': ' || source_url || ' -> ' || target_url
             ORDER BY source_url, target_url) FILTER (WHERE problem IS NOT NULL))[1:5] AS examples
FROM judged;
