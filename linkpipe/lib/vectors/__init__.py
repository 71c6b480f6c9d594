"""Vectors: the embedder interface, the FAISS nearest-neighbour index and topic clusters."""
