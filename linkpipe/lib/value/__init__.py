"""Business value and editors: imported signals (traffic, conversions, priority) and decisions."""
