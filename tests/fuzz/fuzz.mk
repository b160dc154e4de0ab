# Import fuzzing (included by tests/tests.mk): the import of untrusted xstate
# images (fuzz_import), and the Linux importer's perf script text
# (fuzz_perf_import, cli/trace/perf_*.c).
#   make test   replays tests/fuzz/corpus/import through the target (TAP): the
#               verdict its name gives, and every kernel buffer and path
#   make fuzz   libFuzzer + ASan for $(FUZZ_SECONDS) s, seeded with the corpus
#               under every selector; prints executions and edges at the end

FUZZ_SECONDS ?= 60
FUZZ_CORPUS  := tests/fuzz/corpus/import
FUZZ_SRCS    := tests/fuzz/fuzz_import.c
FUZZ_LIBSRCS := $(LIB_SRCS)

$(BUILD)/tests/fuzz_replay_import: tests/fuzz/replay_import.c $(FUZZ_SRCS) tests/fuzz/fuzz_import.h $(BUILD)/libfpu.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -DCORPUS_DIR='"$(CURDIR)/$(FUZZ_CORPUS)"' -o $@ \
		tests/fuzz/replay_import.c $(FUZZ_SRCS) $(BUILD)/libfpu.a

TEST_BINS += $(BUILD)/tests/fuzz_replay_import

$(BUILD)/tests/fuzz_import: $(FUZZ_SRCS) tests/fuzz/fuzz_import.h $(FUZZ_LIBSRCS) $(wildcard include/fpu/*.h lib/*.h)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -O1 -g -Iinclude -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address -o $@ $(FUZZ_SRCS) $(FUZZ_LIBSRCS)

# Each corpus file once per selector (octal): 4 kernel buffers x 2 paths.
FUZZ_SELECTORS := 000 001 002 003 020 021 022 023
.PHONY: fuzz
fuzz: $(BUILD)/tests/fuzz_import ## libFuzzer + ASan on the import, FUZZ_SECONDS (60) s, seeded with the corpus
	rm -rf $(BUILD)/fuzz-corpus && mkdir -p $(BUILD)/fuzz-corpus
	for f in $(FUZZ_CORPUS)/*; do for o in $(FUZZ_SELECTORS); do \
		{ printf "\\$$o"; cat "$$f"; } > $(BUILD)/fuzz-corpus/$$o-$${f##*/}; done; done
	@echo "fuzzing for $(FUZZ_SECONDS) s (log: $(BUILD)/fuzz.log)"
	@status=0; $(BUILD)/tests/fuzz_import -max_total_time=$(FUZZ_SECONDS) -max_len=12353 \
		-print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz- $(BUILD)/fuzz-corpus \
		> $(BUILD)/fuzz.log 2>&1 || status=$$?; \
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|ERROR|SUMMARY|Test unit written' $(BUILD)/fuzz.log; \
	awk '/^#[0-9]+[ \t]+DONE/ { for (i = 1; i <= NF; i++) { if ($$i == "cov:") e = $$(i + 1); if ($$i == "ft:") f = $$(i + 1) } } \
	     /stat::number_of_executed_units/ { x = $$2 } /^Done [0-9]+ runs in/ { t = $$5 } \
	     END { printf "fuzz: %s executions in %s s, %s edges (cov), %s features (ft)\n", x, t, e, f }' \
	     $(BUILD)/fuzz.log; \
	exit $$status

# ---- the Linux importer (perf script text) ----
PERF_FUZZ_CORPUS := tests/fuzz/corpus/perf_import
PERF_FUZZ_SRCS   := tests/fuzz/fuzz_perf_import.c
PERF_IMPORT_SRCS := $(wildcard cli/trace/perf_*.c) cli/trace/trace_check.c cli/trace/trace_io.c \
		    cli/trace/trace_iter.c \
		    cli/common/util.c
PERF_FUZZ_DEPS   := $(PERF_FUZZ_SRCS) tests/fuzz/fuzz_perf_import.h $(PERF_IMPORT_SRCS) \
		    $(wildcard cli/trace/*.h include/fpulab/*.h)

$(BUILD)/tests/fuzz_replay_perf_import: tests/fuzz/replay_perf_import.c $(PERF_FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -Icli -DCORPUS_DIR='"$(CURDIR)/$(PERF_FUZZ_CORPUS)"' \
		-DFIXTURES_DIR='"$(CURDIR)/tests/cli/fixtures/linux"' -o $@ \
		tests/fuzz/replay_perf_import.c $(PERF_FUZZ_SRCS) $(PERF_IMPORT_SRCS) -lm

TEST_BINS += $(BUILD)/tests/fuzz_replay_perf_import

$(BUILD)/tests/fuzz_perf_import: $(PERF_FUZZ_DEPS)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -O1 -g -Iinclude -Icli -D_GNU_SOURCE -DFUZZ_LIBFUZZER \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o $@ $(PERF_FUZZ_SRCS) $(PERF_IMPORT_SRCS) -lm

# Seeded with its corpus and the real excerpts (a selector byte 0 in front).
.PHONY: fuzz-perf-import
fuzz: fuzz-perf-import
fuzz-perf-import: $(BUILD)/tests/fuzz_perf_import
	rm -rf $(BUILD)/fuzz-perf-corpus && mkdir -p $(BUILD)/fuzz-perf-corpus
	cp $(PERF_FUZZ_CORPUS)/* $(BUILD)/fuzz-perf-corpus/
	for f in tests/cli/fixtures/linux/*.txt; do { printf '\0'; cat "$$f"; } \
		> $(BUILD)/fuzz-perf-corpus/fixture-$${f##*/}; done
	@echo "fuzzing the Linux importer for $(FUZZ_SECONDS) s (log: $(BUILD)/fuzz-perf.log)"
	@status=0; $(BUILD)/tests/fuzz_perf_import -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
		-print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz-perf- $(BUILD)/fuzz-perf-corpus \
		> $(BUILD)/fuzz-perf.log 2>&1 || status=$$?; \
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|ERROR|SUMMARY|Test unit written' $(BUILD)/fuzz-perf.log; \
	awk '/^#[0-9]+[ \t]+DONE/ { for (i = 1; i <= NF; i++) { if ($$i == "cov:") e = $$(i + 1); if ($$i == "ft:") f = $$(i + 1) } } \
	     /stat::number_of_executed_units/ { x = $$2 } /^Done [0-9]+ runs in/ { t = $$5 } \
	     END { printf "fuzz-perf-import: %s executions in %s s, %s edges (cov), %s features (ft)\n", x, t, e, f }' \
	     $(BUILD)/fuzz-perf.log; \
	exit $$status
