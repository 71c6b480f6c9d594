-- Flush the new published copy and let it go before it is moved into place.
CHECKPOINT published;
DETACH published;
