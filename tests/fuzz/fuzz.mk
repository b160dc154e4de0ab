# Import fuzzing (included by tests/tests.mk).
#   make test   replays tests/fuzz/corpus/import through the target (TAP)
#   make fuzz   libFuzzer + ASan for $(FUZZ_SECONDS) s on a copy of the corpus

FUZZ_SECONDS ?= 60
FUZZ_CORPUS  := tests/fuzz/corpus/import
FUZZ_SRCS    := tests/fuzz/fuzz_import.c
FUZZ_LIBSRCS := lib/xstate.c lib/xsave.c lib/uabi.c

$(BUILD)/tests/fuzz_replay_import: tests/fuzz/replay_import.c $(FUZZ_SRCS) tests/fuzz/fuzz_import.h $(BUILD)/libfpu.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -DCORPUS_DIR='"$(CURDIR)/$(FUZZ_CORPUS)"' -o $@ \
		tests/fuzz/replay_import.c $(FUZZ_SRCS) $(BUILD)/libfpu.a

TEST_BINS += $(BUILD)/tests/fuzz_replay_import

$(BUILD)/tests/fuzz_import: $(FUZZ_SRCS) tests/fuzz/fuzz_import.h $(FUZZ_LIBSRCS) include/fpu/xstate.h
	@mkdir -p $(dir $@)
	clang -std=gnu11 -O1 -g -Iinclude -fsanitize=fuzzer,address -o $@ $(FUZZ_SRCS) $(FUZZ_LIBSRCS)

.PHONY: fuzz
fuzz: $(BUILD)/tests/fuzz_import
	rm -rf $(BUILD)/fuzz-corpus && mkdir -p $(BUILD)/fuzz-corpus
	cp $(FUZZ_CORPUS)/* $(BUILD)/fuzz-corpus/
	$(BUILD)/tests/fuzz_import -max_total_time=$(FUZZ_SECONDS) -max_len=12288 \
		-artifact_prefix=$(BUILD)/fuzz- $(BUILD)/fuzz-corpus
