"""Text: tokens, stems, stopwords, TF-IDF similarity and name mentions with link probability."""
