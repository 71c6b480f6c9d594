"""A generated documentation-like corpus for lexical tests: Zipf-distributed words, topics."""

import numpy as np


def zipf_corpus(n_pages: int, seed: int = 0, n_topics: int = 30) -> list[str]:
    """``n_pages`` texts: three quarters of the words from a site-wide Zipf vocabulary of
    20,000 words, a quarter from the page's topic (its own 300 Zipf-weighted words), lengths
    log-normal around 300 words."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}x" for i in range(20_000)])
    weights = 1 / np.arange(1, len(words) + 1) ** 1.1
    weights /= weights.sum()
    topic_words = [rng.choice(len(words), 300, replace=False) for _ in range(n_topics)]
    topic_weights = 1 / np.arange(1, 301) ** 0.9
    topic_weights /= topic_weights.sum()
    texts = []
    for _ in range(n_pages):
        length = int(np.clip(rng.lognormal(np.log(300), 0.6), 40, 3_000))
        topic = int(rng.integers(n_topics))
        common = rng.choice(len(words), int(length * 0.75), p=weights)
        own = topic_words[topic][rng.choice(300, length - len(common), p=topic_weights)]
        texts.append(" ".join(words[np.concatenate([common, own])]))
    return texts
