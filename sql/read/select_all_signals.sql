-- One row per URL: the latest import of each kind, merged.
SELECT url, max(clicks) AS clicks, max(impressions) AS impressions, min(position) AS position,
       max(conversions) AS conversions, max(backlinks) AS backlinks, max(priority) AS priority
FROM page_signals GROUP BY url;
