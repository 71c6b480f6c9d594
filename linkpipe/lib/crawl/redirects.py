"""Redirect chains: every hop (HTTP 3xx or meta refresh) is a URL of its own; a source's record
is emitted once the end of its chain is known (or the chain turns out to be a loop)."""

from __future__ import annotations

from linkpipe.lib.records import PageRecord


class RedirectTracker:
    """Holds redirecting pages' records until their chain resolves."""

    def __init__(self) -> None:
        self.target: dict[str, str] = {}  # source -> next hop
        self.pending: dict[str, PageRecord] = {}  # records waiting for their chain's end
        self.waiters: dict[str, list[str]] = {}  # url -> sources whose chain currently ends there
        self.finished: set[str] = set()  # URLs with a final, non-redirect outcome

    def hop(self, record: PageRecord, destination: str) -> list[PageRecord]:
        """``record.url`` redirects to ``destination``; returns records that are now complete."""
        self.target[record.url] = destination
        self.pending[record.url] = record
        ready = self._try(record.url)
        ready.extend(self._wake(record.url))
        return ready

    def terminal(self, url: str) -> list[PageRecord]:
        """``url`` ended without redirecting (fetched, failed or not fetched at all)."""
        if url in self.target:
            return []
        self.finished.add(url)
        return self._wake(url)

    def flush(self) -> list[PageRecord]:
        """Complete every waiting record with the chain known so far (end of the crawl)."""
        ready: list[PageRecord] = []
        for source in list(self.pending):
            chain = self._chain(source)[0]
            ready.append(self._complete(source, chain, loop=False))
        self.waiters.clear()
        return ready

    def _chain(self, source: str) -> tuple[list[str], bool]:
        chain = [source]
        on_chain = {source}
        current = source
        while current in self.target:
            current = self.target[current]
            chain.append(current)
            if current in on_chain:
                return chain, True
            on_chain.add(current)
        return chain, False

    def _complete(self, source: str, chain: list[str], loop: bool) -> PageRecord:
        record = self.pending.pop(source)
        record.redirect_chain = chain
        record.final_url = chain[-1]
        if loop:
            record.redirect_loop = True
            record.error = "redirect_loop"
        return record

    def _try(self, source: str) -> list[PageRecord]:
        if source not in self.pending:
            return []
        chain, loop = self._chain(source)
        if loop or chain[-1] in self.finished:
            return [self._complete(source, chain, loop)]
        self.waiters.setdefault(chain[-1], []).append(source)
        return []

    def _wake(self, url: str) -> list[PageRecord]:
        ready: list[PageRecord] = []
        stack = [url]
        while stack:
            for source in self.waiters.pop(stack.pop(), []):
                done = self._try(source)
                ready.extend(done)
                stack.extend(r.url for r in done)
        return ready
