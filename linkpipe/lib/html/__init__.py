"""HTML of fetched pages: one parse for metadata and links, link positions, site templates."""
