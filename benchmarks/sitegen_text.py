"""Real English words with real frequencies (wordfreq), topic vocabularies and prose for
generated benchmark sites; used by gen_large_site.py (not a script of its own).

General English follows the frequencies wordfreq measured (a Zipf law over real words); each
topic draws its own vocabulary of content words and weights it by a Zipf law of its own rank.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GENERAL_WORDS = 30_000  # general English vocabulary (real words, by frequency)
TOPIC_POOL_START = 600  # topic words are drawn from ranks after the most common words
TOPIC_WORDS = 160  # words of one topic's vocabulary
TOPIC_SHARE = 0.28  # share of running text drawn from the page's topic vocabulary
ZIPF_S = 1.05  # exponent of the Zipf law inside a topic vocabulary
# words of chat and subtitles (wordfreq's sources) that documentation does not use
_UNWANTED = frozenset(
    "fuck fucking fucked shit damn bitch ass asshole dick cock pussy cunt whore slut porn "
    "porno sex sexy nude naked boobs tits busty anal horny rape xxx milf hentai nigga nigger "
    "fag faggot twat wtf lol lmao omg".split()
)


def _zipf_cdf(n: int, s: float) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** s
    cdf: np.ndarray = np.cumsum(weights)
    normalised: np.ndarray = cdf / cdf[-1]
    return normalised


@dataclass(frozen=True)
class Vocabulary:
    """General English words with their cumulative frequencies, and one vocabulary per topic."""

    words: np.ndarray  # object array of str, most frequent first
    cdf: np.ndarray  # cumulative relative frequency of ``words``
    topics: list[np.ndarray]  # per topic: object array of str, most weighted first
    topic_cdf: np.ndarray  # the Zipf cdf shared by every topic vocabulary

    def general(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """``k`` words drawn by their English frequency."""
        return self.words[np.searchsorted(self.cdf, rng.random(k))]

    def topical(self, rng: np.random.Generator, topic: int, k: int) -> np.ndarray:
        """``k`` words of ``topic``'s vocabulary, Zipf-weighted."""
        return self.topics[topic][np.searchsorted(self.topic_cdf, rng.random(k))]

    def mixed(self, rng: np.random.Generator, topic: int, k: int) -> list[str]:
        """Running text: general English with :data:`TOPIC_SHARE` topic words."""
        out = self.general(rng, k)
        is_topic = rng.random(k) < TOPIC_SHARE
        n_topic = int(is_topic.sum())
        if n_topic:
            out[is_topic] = self.topical(rng, topic, n_topic)
        return list(out)


def build_vocabulary(n_topics: int, seed: int) -> Vocabulary:
    """Real English words from wordfreq and ``n_topics`` topic vocabularies (deterministic)."""
    from wordfreq import get_frequency_dict

    freq = get_frequency_dict("en")
    pairs = [(w, f) for w, f in freq.items() if w.isascii() and w.isalpha() and w not in _UNWANTED][
        :GENERAL_WORDS
    ]
    words = np.array([w for w, _ in pairs], dtype=object)
    weights = np.array([f for _, f in pairs], dtype=np.float64)
    cdf = np.cumsum(weights) / weights.sum()
    pool = np.arange(TOPIC_POOL_START, len(words))
    pool_p = np.sqrt(weights[pool])
    pool_p /= pool_p.sum()
    rng = np.random.default_rng([seed, 1])
    topics = []
    for _ in range(n_topics):
        chosen = rng.choice(pool, size=TOPIC_WORDS, replace=False, p=pool_p)
        topics.append(words[rng.permutation(chosen)])
    return Vocabulary(words, cdf, topics, _zipf_cdf(TOPIC_WORDS, ZIPF_S))


def sentences(words: list[str], rng: np.random.Generator) -> list[list[str]]:
    """Cut running words into sentences of 6 to 26 words."""
    out: list[list[str]] = []
    start = 0
    while start < len(words):
        length = int(rng.integers(6, 27))
        out.append(words[start : start + length])
        start += length
    return out


def sentence_text(words: list[str]) -> str:
    """Words as a sentence: capitalised, ends with a full stop."""
    if not words:
        return ""
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def title_case(words: list[str]) -> str:
    """``["vector", "index"]`` -> ``"Vector Index"``."""
    return " ".join(w[:1].upper() + w[1:] for w in words)


def lognormal_length(rng: np.random.Generator, median: int = 400, sigma: float = 0.8) -> int:
    """Words of a documentation page: log-normal, median ``median``, tail to several thousand."""
    return int(np.clip(rng.lognormal(np.log(median), sigma), 80, 9_000))
