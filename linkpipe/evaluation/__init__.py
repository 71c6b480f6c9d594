"""Link-recovery evaluation: remove links from a static site, rerun, compare with baselines."""
