# Tests: included by the Makefile. The contract:
#  - every tests/unit/test_*.c becomes $(BUILD)/tests/test_*, linked with
#    $(BUILD)/libfpu.a -lcmocka;
#  - every test executable is listed in TEST_BINS (fuzz.mk and lab.mk append);
#  - `make test` checks the dependencies, builds everything, then runs
#    tests/run-tests.sh $(TEST_BINS), whose last line is "N passed, N failed, N skipped".

UNIT_TEST_SRCS := $(wildcard tests/unit/test_*.c)
TEST_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_TEST_SRCS))

$(BUILD)/tests/test_%: tests/unit/test_%.c $(BUILD)/libfpu.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -MMD -o $@ $< $(BUILD)/libfpu.a -lcmocka $(HLDLIBS)

# libfpu with FPU_TESTING (fault injection) for the unit tests that show a
# fault is caught: test_guarantees.
HOSTLIB_TEST_OBJS := $(patsubst %,$(BUILD)/host-test/%.o,$(LIB_SRCS))
$(BUILD)/host-test/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -DFPU_TESTING -MMD -c $< -o $@
$(HOSTLIB_TEST_OBJS): HCFLAGS += -mgeneral-regs-only
$(BUILD)/libfpu-test.a: $(HOSTLIB_TEST_OBJS)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/tests/test_guarantees: tests/unit/test_guarantees.c $(BUILD)/libfpu-test.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -MMD -o $@ $< $(BUILD)/libfpu-test.a -lcmocka $(HLDLIBS)

# The fpulab command: unit tests of its parts (cmocka), and `fpulab run`
# against a fake QEMU (TAP shell script; uses $(BUILD)/fpulab).
CLI_UNIT_OBJS := $(filter-out $(BUILD)/host/cli/main.c.o,$(CLI_OBJS))
$(BUILD)/tests/test_cli_%: tests/cli/test_cli_%.c $(CLI_UNIT_OBJS) $(BUILD)/libfpu.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -Icli -MMD -o $@ $< $(CLI_UNIT_OBJS) $(BUILD)/libfpu.a -lcmocka $(HLDLIBS)
# replay against libfpu with a fault injected: the engine's report of the first integrity error
$(BUILD)/tests/test_cli_replay_faults: tests/cli/test_cli_replay_faults.c $(CLI_UNIT_OBJS) \
		$(BUILD)/libfpu-test.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -Icli -MMD -o $@ $< $(CLI_UNIT_OBJS) $(BUILD)/libfpu-test.a -lcmocka \
		$(HLDLIBS)
TEST_BINS += $(patsubst tests/cli/%.c,$(BUILD)/tests/%,$(wildcard tests/cli/test_cli_*.c))
# The cmocka executables (libfpu's and the cli's unit tests), for make test-ubsan.
UNIT_BINS := $(TEST_BINS)
# Every tests/cli/test_*.sh is a TAP script (lib.sh is what they source).
TEST_BINS += $(wildcard tests/cli/test_*.sh)

-include tests/fuzz/fuzz.mk
-include tests/lab/lab.mk

# This host's costs, measured once per `make test`: the replays of the tests
# read them ($FPULAB_HOST_COSTS, docs/model.md) instead of measuring them
# each time (0.6 s a replay); tests/cli/test_replay_costs.sh measures too.
HOST_COSTS_CACHE := $(abspath $(BUILD))/tests/host-costs.json

.PHONY: test-bins test-ubsan check-tests
test-bins: all $(TEST_BINS)

test: ## build, then run every test (SUITE=NAME: one); ends "N passed, N failed, N skipped"
	./tools/ensure-deps test
	$(MAKE) --no-print-directory test-bins
	@echo "make test: the GRUB image boots (BIOS and UEFI, minutes under TCG) are not run here: make test-image (.ci/run runs it)"
	$(BUILD)/fpulab host costs --repeat 3 --format json --output $(HOST_COSTS_CACHE) 2> /dev/null
	FPULAB=$(BUILD)/fpulab FPULAB_HOST_COSTS=$(HOST_COSTS_CACHE) \
		tests/run-tests.sh $(if $(SUITE),$(SUITE_BINS),$(TEST_BINS))

# The bootable image's tests (docs/bare-metal.md): boots of GRUB images under
# QEMU TCG on SeaBIOS and OVMF, slow, so not part of make test; .ci/run runs them.
IMAGE_TEST_BINS := $(filter-out tests/image/lib.sh,$(sort $(wildcard tests/image/*.sh)))
.PHONY: test-image
test-image: ## boot the GRUB image under QEMU on SeaBIOS and OVMF (slow; not in make test)
	./tools/ensure-deps image
	$(MAKE) --no-print-directory all
	FPULAB=$(BUILD)/fpulab tests/run-tests.sh $(IMAGE_TEST_BINS)

# make test SUITE=NAME: only the test executables whose name is NAME
# (test_cli_compare, test_run.sh, stress, ...); none matching is an error.
SUITE_BINS = $(foreach t,$(TEST_BINS),$(if $(filter $(SUITE) $(SUITE).sh,$(notdir $(t))),$(t)))

# The unit tests again with UBSan (undefined behaviour stops the test), in
# $(BUILD)/ubsan; the ASan side is make fuzz.
test-ubsan: ## the cmocka unit tests (libfpu, cli) built with -fsanitize=undefined, run (in BUILD/ubsan)
	./tools/ensure-deps test
	$(MAKE) --no-print-directory BUILD=$(BUILD)/ubsan SANITIZE=undefined \
		$(patsubst $(BUILD)/%,$(BUILD)/ubsan/%,$(UNIT_BINS))
	UBSAN_OPTIONS=print_stacktrace=1 tests/run-tests.sh $(patsubst $(BUILD)/%,$(BUILD)/ubsan/%,$(UNIT_BINS))

# Every test source in tests/ is run by make test (or make test-image): a C test or TAP script
# that no rule picks up (a new folder, a name outside the patterns) fails
# make lint rather than being skipped in silence.
TEST_HELPERS := tests/run-tests.sh tests/tap.sh tests/cli/lib.sh tests/lab/lib.sh \
                tests/image/lib.sh tests/cli/fake-qemu tests/fuzz/make_corpus.py
check-tests: ## fail if a test source in tests/ is one make test would not run (part of lint)
	@bad=; for f in $$(git ls-files 'tests/*.sh' 'tests/*.c' 'tests/*.py' 'tests/*/fake-*'); do \
		case "$$f" in tests/fuzz/*.c) continue ;; esac; \
		case " $(TEST_HELPERS) " in *" $$f "*) continue ;; esac; \
		t=$$f; case "$$f" in *.c) t=$(BUILD)/tests/$$(basename "$$f" .c) ;; esac; \
		case " $(TEST_BINS) $(IMAGE_TEST_BINS) " in *" $$t "*) ;; *) bad="$$bad $$f" ;; esac; \
	done; \
	if [ -n "$$bad" ]; then \
		echo "check-tests: not run by make test:$$bad" >&2; \
		echo "  (C tests: tests/unit/test_*.c, tests/cli/test_cli_*.c; scripts: tests/cli/test_*.sh, tests/lab/*.sh," >&2; \
		echo "   tests/image/*.sh for make test-image;" >&2; \
		echo "   a helper that is not a test goes in TEST_HELPERS, tests/tests.mk)" >&2; exit 1; \
	fi; echo "check-tests: every test source is run by make test"
