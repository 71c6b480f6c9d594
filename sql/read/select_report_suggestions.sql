-- `linkpipe report`: the best suggestions of a crawl (pairs editors rejected left out, as in
-- v_opportunities) and how many there are in all. ? = crawl_id, ? = most rows.
-- anchor_start/anchor_end are character offsets into page_summaries.main_text of the source,
-- not into the sentence: the sentence lies in main_text around the anchor (see
-- check_anchor_placements.sql), and its first occurrence in the window that starts
-- length(sentence) characters before the anchor's end is the one that holds the anchor.
-- sentence_anchor_start is the anchor's offset in the sentence (0-based), NULL when the row
-- has no in-sentence placement.
WITH chosen AS (
    SELECT *, count(*) OVER () AS total
    FROM v_opportunities_all WHERE crawl_id = ?
    ORDER BY score DESC, source_url, target_url
    LIMIT ?
), placed AS (
    SELECT c.*, s.main_text,
           greatest(c.anchor_end - length(c.sentence), 0) AS window_start
    FROM chosen c
    LEFT JOIN page_summaries s ON s.crawl_id = c.crawl_id AND s.url = c.source_url
)
SELECT source_url, target_url, source_title, target_title, source_type, target_type, rank,
       score, confidence, anchor_text, sentence, placement, reason, decision, total,
       CASE WHEN placement = 'in_sentence' AND main_text IS NOT NULL
                 AND anchor_start IS NOT NULL AND anchor_end IS NOT NULL
            THEN anchor_start - window_start + 1 - instr(
                substring(main_text, window_start + 1,
                          anchor_start + length(sentence) - window_start),
                sentence)
       END AS sentence_anchor_start
FROM placed
ORDER BY score DESC, source_url, target_url;
