TEST_BINS += tests/lab/test_counts.sh
