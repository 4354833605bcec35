"""What every game shares: cards, the Ranking Column and its categories, statistics,
errors, the five-card reference classifier, profiling, and the shared constants."""
