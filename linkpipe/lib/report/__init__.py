"""The editor's report: a static HTML page (``linkpipe report``) with a crawl's suggestions per
source and per target page (sentence, highlighted anchor, filters), the score and confidence
distribution, content inlinks before and after the suggestions, a 2D map of the topic
clusters, orphan and deep pages, and the crawl diff. ``data`` reads the database, ``figures``
computes what the charts show, ``charts`` draws them with plotly, ``render`` writes the folder.
"""
