TEST_BINS += tests/lab/test_counts.sh
TEST_BINS += tests/lab/stress.sh
TEST_BINS += tests/lab/faults.sh
TEST_BINS += tests/lab/seed_exps.sh
TEST_BINS += tests/lab/limits.sh
TEST_BINS += tests/lab/sleeping_lock.sh
TEST_BINS += tests/lab/costs.sh
TEST_BINS += tests/lab/trace_rec.sh
