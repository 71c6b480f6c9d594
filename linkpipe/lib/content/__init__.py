"""Page content: main-text extraction, compact summaries, page types and indexability rules."""
