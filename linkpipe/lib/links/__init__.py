"""Links: the existing-link graph, candidate pairs, anchor placement and opportunity scoring."""
